// The plugin through its C ABI, as the host sees it: containers, info, stages.
#include "test_support.hpp"
#include "xbox_swizzle.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

namespace {

const af_plugin* plugin() { return xtftest::xtf_plugin(); }
using xtftest::container;
using xtftest::stage;

using xtftest::input_of;

struct Collected {
    std::vector<std::vector<uint8_t>> items;
    static af_status emit(void* ctx, const af_item* item) {
        static_cast<Collected*>(ctx)->items.emplace_back(item->bytes, item->bytes + item->size);
        return AF_OK;
    }
};

// A stage's io over one input item (`inputs`, which must outlive it), collecting into `out`.
af_stage_io one_input_io(const af_item* const* inputs, Collected& out) {
    af_stage_io io{};
    af::sdk::init_header(io);
    io.inputs = inputs;
    io.input_count = 1;
    io.ctx = &out;
    io.emit = Collected::emit;
    return io;
}

} // namespace

TEST_CASE("plugin: registers xtf and vtf containers and three stages", "[plugin]") {
    REQUIRE(plugin());
    CHECK(std::string(plugin()->name) == "xtf");
    REQUIRE(container("xtf"));
    REQUIRE(container("vtf"));
    CHECK(stage("xtf.write"));
    CHECK(stage("swizzle"));
    CHECK(stage("deswizzle"));
    const uint8_t xtf_magic[] = {'X', 'T', 'F', 0}, vtf_magic[] = {'V', 'T', 'F', 0};
    CHECK(container("xtf")->probe(xtf_magic, 4, "a.bin") == AF_PROBE_MAGIC);
    CHECK(container("xtf")->probe(vtf_magic, 4, "a.bin") == AF_PROBE_NO);
    CHECK(container("xtf")->probe(vtf_magic, 4, "A.XTF") == AF_PROBE_EXTENSION);
    CHECK(container("vtf")->probe(vtf_magic, 4, "a.bin") == AF_PROBE_MAGIC);
}

TEST_CASE("plugin: read, write and info through the ABI", "[plugin]") {
    const af_host* h = xtftest::host();
    const std::string name = "bgra8888_cube_16x16_mips";
    const auto file = xtftest::read_bytes(xtftest::data_dir() / name / (name + ".xtf"));
    af_input in = input_of(file, "cube.xtf");
    af_texture tex{};
    af_error err{};
    REQUIRE(container("xtf")->read(h, &in, nullptr, &tex, &err) == AF_OK);
    CHECK(tex.face_count == 6);
    CHECK(tex.mip_count == 5);
    CHECK((tex.flags & AF_TEX_CUBE));
    CHECK(tex.format == af::FMT_B8G8R8A8_UNORM);

    // Write it back with the fixture's parameters: same layout and size.
    af_kv kv[] = {{"format", "BGRA8888"}, {"flags", "0x08006000"}, {"fallback", "8x8"}};
    af_options opts{kv, 3};
    std::vector<uint8_t> written;
    af_sink sink{&written, [](void* ctx, const void* d, uint64_t n) {
                     auto* v = static_cast<std::vector<uint8_t>*>(ctx);
                     v->insert(v->end(), static_cast<const uint8_t*>(d), static_cast<const uint8_t*>(d) + n);
                     return AF_OK;
                 }};
    REQUIRE(container("xtf")->write(h, &tex, &opts, &sink, &err) == AF_OK);
    // The reader recorded the stored fallback; mip 0 is unchanged, so it is
    // written back rather than resampled: the whole file comes back.
    CHECK((written == file));
    h->free(tex.data);

    af_info_text info{};
    REQUIRE(container("xtf")->info(h, &in, nullptr, &info, &err) == AF_OK);
    auto j = nlohmann::json::parse(info.json);
    CHECK(j["header"]["preload_size"] == 2101);
    CHECK(j["header"]["image_offset"] == 2560);
    CHECK(j["derived"]["face_count"] == 6);
    CHECK(j["image_blocks"].size() == 30);
    CHECK(j["fallback_blocks"].size() == 24);
    CHECK(j["header"]["flag_names"] == "EIGHTBITALPHA|ENVMAP|CACHEABLE");
    CHECK_THAT(std::string(info.text), Catch::Contains("image offset: 2560"));
    h->free(info.json);
    h->free(info.text);

    // P8: expanded by default, indices + palette on request.
    const auto p8 = xtftest::read_bytes(xtftest::data_dir() / "p8_32x32_mips" / "p8_32x32_mips.xtf");
    af_input pin = input_of(p8, "p.xtf");
    REQUIRE(container("xtf")->read(h, &pin, nullptr, &tex, &err) == AF_OK);
    CHECK(tex.format == af::FMT_R8G8B8A8_UNORM);
    CHECK(tex.palette == nullptr);
    h->free(tex.data);
    af_kv keep[] = {{"keep_indices", "true"}};
    af_options ko{keep, 1};
    REQUIRE(container("xtf")->read(h, &pin, &ko, &tex, &err) == AF_OK);
    CHECK(tex.format == af::FMT_P8);
    CHECK(tex.palette_size == 1024);
    h->free(tex.data);
    h->free(tex.palette);
    af_kv fb[] = {{"image", "fallback"}};
    af_options fo{fb, 1};
    REQUIRE(container("xtf")->read(h, &pin, &fo, &tex, &err) == AF_OK);
    CHECK(tex.width == 8);
    CHECK(tex.mip_count == 4);
    h->free(tex.data);

    // A broken file: the error names the field and the offset.
    auto broken = file;
    broken[26] = broken[27] = 0;
    af_input bin = input_of(broken, "broken.xtf");
    CHECK(container("xtf")->read(h, &bin, nullptr, &tex, &err) == AF_ERR_INVALID_DATA);
    CHECK(err.offset == 26);
    CHECK_THAT(std::string(err.message), Catch::Contains("frame count"));
}

TEST_CASE("plugin: vtf container and info", "[plugin][vtf]") {
    const af_host* h = xtftest::host();
    const auto file = xtftest::read_bytes(xtftest::data_dir() / "dxt5_64x32_mips" / "dxt5_64x32_mips.xtf");
    af_input in = input_of(file, "a.xtf");
    af_texture tex{};
    af_error err{};
    REQUIRE(container("xtf")->read(h, &in, nullptr, &tex, &err) == AF_OK);
    std::vector<uint8_t> vtf;
    af_sink sink{&vtf, [](void* ctx, const void* d, uint64_t n) {
                     auto* v = static_cast<std::vector<uint8_t>*>(ctx);
                     v->insert(v->end(), static_cast<const uint8_t*>(d), static_cast<const uint8_t*>(d) + n);
                     return AF_OK;
                 }};
    af_kv kv[] = {{"reflectivity", "0.5,0.5,0.5"}, {"thumbnail", "off"}};
    af_options o{kv, 2};
    REQUIRE(container("vtf")->write(h, &tex, &o, &sink, &err) == AF_OK);
    af_input vin = input_of(vtf, "a.vtf");
    af_texture back{};
    REQUIRE(container("vtf")->read(h, &vin, nullptr, &back, &err) == AF_OK);
    CHECK(back.data_size == tex.data_size);
    CHECK(std::memcmp(back.data, tex.data, tex.data_size) == 0);
    af_info_text info{};
    REQUIRE(container("vtf")->info(h, &vin, nullptr, &info, &err) == AF_OK);
    auto j = nlohmann::json::parse(info.json);
    CHECK(j["header"]["version"][1] == 2);
    CHECK(j["header"]["image_format_name"] == "DXT5");
    CHECK(j["image_blocks"].size() == 7);
    CHECK(j["image_blocks"][0]["mip"] == 6); // smallest first
    h->free(info.json);
    h->free(info.text);
    h->free(tex.data);
    h->free(back.data);
}

TEST_CASE("plugin: swizzle and deswizzle stages", "[plugin][swizzle]") {
    const af_host* h = xtftest::host();
    std::vector<uint8_t> raw(8 * 4 * 4);
    for (size_t i = 0; i < raw.size(); ++i) raw[i] = uint8_t(i);
    af_item item{};
    af::sdk::init_header(item);
    item.name = "surface.bin";
    item.bytes = raw.data();
    item.size = raw.size();
    const af_item* inputs[] = {&item};
    Collected out;
    af_stage_io io = one_input_io(inputs, out);
    af_kv kv[] = {{"width", "8"}, {"height", "4"}, {"bpp", "32"}};
    af_options p{kv, 3};
    af_error err{};
    REQUIRE(stage("swizzle")->run(h, &io, &p, &err) == AF_OK);
    REQUIRE(out.items.size() == 1);
    std::vector<uint8_t> expect(raw.size());
    af::xtf::swizzle(raw.data(), expect.data(), 8, 4, 1, 4);
    CHECK((out.items[0] == expect));
    item.bytes = out.items[0].data();
    REQUIRE(stage("deswizzle")->run(h, &io, &p, &err) == AF_OK);
    CHECK((out.items[1] == raw));
    af_kv bad[] = {{"width", "6"}, {"height", "4"}, {"bpp", "32"}};
    af_options pb{bad, 3};
    CHECK(stage("swizzle")->run(h, &io, &pb, &err) == AF_ERR_USAGE);
    CHECK_THAT(std::string(err.message), Catch::Contains("power-of-two"));
    af_kv wrong[] = {{"width", "16"}, {"height", "4"}, {"bpp", "32"}};
    af_options pw{wrong, 3};
    CHECK(stage("swizzle")->run(h, &io, &pw, &err) == AF_ERR_INVALID_DATA);
    CHECK_THAT(std::string(err.message), Catch::Contains("256 bytes, the input has 128"));
}

TEST_CASE("plugin: xtf.write stage", "[plugin]") {
    const af_host* h = xtftest::host();
    af::TextureDesc d;
    d.format = af::FMT_R8G8B8A8_UNORM;
    d.width = d.height = 16;
    af::Texture t(d);
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i * 3);
    af_texture ct{};
    af::sdk::export_texture(h, t, &ct);
    af_item item{};
    af::sdk::init_header(item);
    item.name = "t";
    item.texture = &ct;
    const af_item* inputs[] = {&item};
    Collected out;
    af_stage_io io = one_input_io(inputs, out);
    af_kv kv[] = {{"format", "BGRA8888"}, {"fallback", "4"}, {"lowres", "false"}, {"nomip", "true"}};
    af_options p{kv, 4};
    af_error err{};
    REQUIRE(stage("xtf.write")->run(h, &io, &p, &err) == AF_OK);
    REQUIRE(out.items.size() == 1);
    const auto& b = out.items[0];
    CHECK(b[54] == 4);  // fallback width
    CHECK(b[52] == 0);  // no low-res image
    CHECK((b[17] & 1)); // NOMIP
    h->free(ct.data);
}
