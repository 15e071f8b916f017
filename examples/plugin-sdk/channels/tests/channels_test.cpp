// channels.split through the C ABI, reached as the host reaches it (the plugin entry), on the SDK's FakeHost.
#define CATCH_CONFIG_MAIN
#include <assetforge/plugin.hpp>
#include <assetforge/testing/fake_host.hpp>
#include <assetforge/write_texture.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

extern "C" const af_plugin* assetforge_plugin_entry(const af_host*);

namespace {

namespace sdk = af::sdk;

struct Emitted {
    std::vector<std::string> names, channels;
    std::vector<af::Texture> textures;
};

af_status collect(void* ctx, const af_item* item) {
    auto* e = static_cast<Emitted*>(ctx);
    e->names.emplace_back(item->name);
    e->channels.push_back(sdk::item_meta(*item, "channel"));
    e->textures.push_back(sdk::import_texture(*item->texture));
    return AF_OK;
}

// Runs the stage on one texture item named `name` with the given parameters.
af_status run(const af_host* host, const af::Texture& t, const std::string& name, sdk::OptionList params, Emitted& out,
              af_error& err) {
    const af_plugin* p = assetforge_plugin_entry(host);
    REQUIRE(p->stage_count == 1);
    const af_stage* st = p->stages[0];
    sdk::TextureView view(t);
    af_item item{};
    sdk::init_header(item);
    item.name = name.c_str();
    item.texture = view.get();
    const af_item* inputs[] = {&item};
    af_stage_io io{};
    sdk::init_header(io);
    io.inputs = inputs;
    io.input_count = 1;
    io.ctx = &out;
    io.emit = collect;
    af_options o = params.view();
    return st->run(host, &io, &o, &err);
}

af::Texture rgba(uint32_t w, uint32_t h, uint32_t flags = 0) {
    af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, w, h});
    t.desc.flags = flags;
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i * 7 + 3);
    return t;
}

} // namespace

TEST_CASE("channels.split: every channel by default, each texel from its own channel") {
    sdk::testing::FakeHost host;
    const af::Texture t = rgba(3, 2, AF_TEX_SRGB);
    Emitted e;
    af_error err{};
    REQUIRE(run(host, t, "sub/mask.png", {}, e, err) == AF_OK);
    REQUIRE(e.textures.size() == 4);
    CHECK(e.names == std::vector<std::string>{"sub/mask_r.png", "sub/mask_g.png", "sub/mask_b.png", "sub/mask_a.png"});
    CHECK(e.channels == std::vector<std::string>{"r", "g", "b", "a"});
    for (size_t k = 0; k < 4; ++k) {
        const af::Texture& g = e.textures[k];
        CHECK(g.desc.format == af::FMT_R8_UNORM);
        CHECK(g.desc.width == 3);
        CHECK(g.desc.height == 2);
        for (size_t p = 0; p < 6; ++p) CHECK(g.data[p] == t.data[p * 4 + k]);
    }
    // Colour channels keep the sRGB tag of their source; alpha is data.
    CHECK((e.textures[0].desc.flags & AF_TEX_SRGB) != 0);
    CHECK((e.textures[3].desc.flags & AF_TEX_SRGB) == 0);
    CHECK((e.textures[3].desc.flags & AF_TEX_LINEAR) != 0);
    CHECK(host.live_allocations() == 0); // the decoded copy went back to the host
}

TEST_CASE("channels.split: only the channels asked for, a wrong one is refused") {
    sdk::testing::FakeHost host;
    Emitted e;
    af_error err{};
    sdk::OptionList two;
    two.set("channels", "g,a");
    REQUIRE(run(host, rgba(2, 2), "m", two, e, err) == AF_OK);
    CHECK(e.names == std::vector<std::string>{"m_g", "m_a"});
    Emitted none;
    sdk::OptionList bad;
    bad.set("channels", "r,x");
    CHECK(run(host, rgba(2, 2), "m", bad, none, err) == AF_ERR_USAGE);
    CHECK(std::string(err.message).find("'x'") != std::string::npos);
    CHECK(none.textures.empty());
}
