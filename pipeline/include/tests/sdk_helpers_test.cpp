// The SDK's conveniences for plugin code: option defaults from the declared
// table, a borrowed texture read in place, a texture exported without a copy
// and a texture emitted from a stage.
#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using af::sdk::testing::FakeHost;
namespace sdk = af::sdk;

namespace {

const sdk::ParamTable& table() {
    static const sdk::ParamTable t{
        sdk::boolean("rle", "run-length encode").def("true"),
        sdk::integer("level", 0, 9, "effort").def("6"),
        sdk::number("gamma", "gamma").def("2.2"),
        sdk::one_of("origin", {"top", "bottom"}, "first row").def("bottom"),
        sdk::text("comment", "a note"),
    };
    return t;
}

af_texture c_texture(const af::Texture& t) {
    af_texture c{};
    sdk::init_header(c);
    c.format = t.desc.format;
    c.width = t.desc.width;
    c.height = t.desc.height;
    c.depth = 1;
    c.mip_count = t.desc.mips;
    c.layer_count = t.desc.layers;
    c.face_count = t.desc.faces;
    c.data = const_cast<uint8_t*>(t.data.data());
    c.data_size = t.data.size();
    return c;
}

} // namespace

TEST_CASE("sdk: options read without a default take the declared one") {
    sdk::OptionList given;
    af_options none = given.view();
    const sdk::Options d(&none, table());
    CHECK(d.flag("rle") == true);
    CHECK(d.integer("level") == 6);
    CHECK(d.number("gamma") == Approx(2.2));
    CHECK(d.choice("origin") == "bottom");
    CHECK(d.str("comment").empty());

    given.set("rle", "false");
    given.set("level", "9");
    given.set("origin", "top");
    af_options some = given.view();
    const sdk::Options o(&some, table());
    CHECK(o.flag("rle") == false);
    CHECK(o.integer("level") == 9);
    CHECK(o.choice("origin") == "top");

    given.set("level", "10"); // outside the declared range
    given.set("origin", "middle");
    af_options bad = given.view();
    const sdk::Options b(&bad, table());
    CHECK_THROWS_WITH(b.integer("level"), Catch::Contains("[0, 9]"));
    CHECK_THROWS_WITH(b.choice("origin"), Catch::Contains("top, bottom"));
    // A plugin bug, said as one: the key has no declaration to take a default from.
    CHECK_THROWS_WITH(d.flag("undeclared"), Catch::Contains("not declared"));
    CHECK_THROWS_WITH(sdk::Options(&none).flag("rle"), Catch::Contains("not declared"));
}

TEST_CASE("sdk: view_texture reads a borrowed texture in place, export_new_texture fills host memory") {
    af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 4, 2, 1, 2});
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i);
    const af_texture c = c_texture(t);
    const sdk::TextureRef v = sdk::view_texture(c);
    CHECK(v.data.data() == t.data.data()); // no copy
    CHECK(v.desc.mips == 2);
    const af_surface mip1 = v.surface(0, 0, 1);
    CHECK(mip1.width == 2);
    CHECK(mip1.height == 1);
    CHECK(mip1.data == t.data.data() + 32);
    CHECK(mip1.size == 8);
    CHECK_THROWS(v.surface(0, 0, 2));
    af_texture shorter = c;
    shorter.data_size -= 1;
    CHECK_THROWS_WITH(sdk::view_texture(shorter), Catch::Contains("needs 40"));

    FakeHost host;
    af_texture out{};
    std::span<uint8_t> bytes = sdk::export_new_texture(host, t.desc, &out);
    CHECK(bytes.size() == 40);
    CHECK(out.data == bytes.data());
    CHECK(host.live_allocations() == 1);
    host.get()->free(out.data);
}

TEST_CASE("sdk: emit_texture hands the host a texture item with its metadata") {
    struct Seen {
        std::string name;
        af::Texture texture;
        std::string channel;
    } seen;
    af_stage_io io{};
    sdk::init_header(io);
    io.ctx = &seen;
    io.emit = [](void* ctx, const af_item* item) {
        auto* s = static_cast<Seen*>(ctx);
        s->name = item->name;
        s->texture = sdk::import_texture(*item->texture);
        s->channel = sdk::item_meta(*item, "channel");
        return AF_OK;
    };
    af::Texture t(af::TextureDesc{af::FMT_R8_UNORM, 3, 1});
    t.data = {1, 2, 3};
    sdk::emit_texture(&io, "mask_r", t, {{"channel", "r"}});
    CHECK(seen.name == "mask_r");
    CHECK(seen.texture.data == t.data);
    CHECK(seen.texture.desc == t.desc);
    CHECK(seen.channel == "r");
    io.emit = [](void*, const af_item*) { return AF_ERR_INTERNAL; };
    CHECK_THROWS_WITH(sdk::emit_texture(&io, "x", t), Catch::Contains("refused"));
}
