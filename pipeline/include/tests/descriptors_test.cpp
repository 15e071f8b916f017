#include "assetforge/descriptors.hpp"

#include <catch2/catch.hpp>

namespace sdk = af::sdk;

namespace {
af_status read(const af_host*, const af_input*, const af_options*, af_texture*, af_error*) { return AF_OK; }
af_status info(const af_host*, const af_input*, const af_options*, af_info_text*, af_error*) { return AF_OK; }
af_status decode(const af_host*, const af_surface*, af_surface*, const af_options*, af_error*) { return AF_OK; }
af_status run(const af_host*, const af_stage_io*, const af_options*, af_error*) { return AF_OK; }
int32_t command(const af_host*, int32_t, const char* const*) { return 0; }

template <class T> void check_header(const T& t) {
    CHECK(t.struct_size == sizeof(T));
    CHECK(t.api_major == AF_API_MAJOR);
    CHECK(t.api_minor == AF_API_MINOR);
}
} // namespace

TEST_CASE("make_container: header, caps from the functions set, option tables") {
    static const sdk::ParamTable none;
    static const sdk::ParamTable write{sdk::boolean("fast", "write quickly").def("false")};
    const af_container c = sdk::make_container({.name = "x",
                                                .extensions = ".x",
                                                .description = "test",
                                                .read = read,
                                                .info = info,
                                                .read_options = &none,
                                                .write_options = &write,
                                                .meta_keys = sdk::kNoMetaKeys});
    check_header(c);
    CHECK(c.caps == (AF_CAN_READ | AF_CAN_INFO));
    CHECK(c.version == 1);
    REQUIRE(c.read_options != nullptr); // declared empty, not undeclared
    CHECK(c.read_option_count == 0);
    REQUIRE(c.write_option_count == 1);
    CHECK(std::string(c.write_options[0]->name) == "fast");
    CHECK(c.meta_keys[0] == nullptr);
    const af_container bare = sdk::make_container({.name = "y"});
    CHECK(bare.caps == 0);
    CHECK(bare.read_options == nullptr);
    CHECK(bare.meta_keys == nullptr);
}

TEST_CASE("make_codec, make_stage, make_command fill lists with their counts") {
    static const uint32_t formats[] = {70, 71, 72};
    static const sdk::ParamTable params{sdk::integer("level", 0, 3, "how hard"), sdk::text("name", "the name")};
    const af_codec c = sdk::make_codec({.name = "c", .version = 4, .formats = formats, .decode = decode});
    check_header(c);
    CHECK(c.format_count == 3);
    CHECK(c.formats == formats);
    CHECK(c.version == 4);
    CHECK(c.encode == nullptr);
    CHECK(c.decode_options == nullptr);

    static const char* const meta[] = {"level", nullptr};
    const af_stage s = sdk::make_stage(
        {.name = "s.gather", .kind = AF_STAGE_GATHER, .run = run, .params = &params, .meta_keys = meta});
    check_header(s);
    CHECK(s.kind == AF_STAGE_GATHER);
    CHECK(s.takes == AF_STAGE_TAKES_BYTES);
    CHECK(s.param_decl_count == 2);
    REQUIRE(s.params != nullptr); // names for hosts before API 1.2
    CHECK(std::string(s.params[1]) == "name");
    CHECK(s.params[2] == nullptr);
    CHECK(s.meta_keys == meta);

    const af_command cmd = sdk::make_command({.name = "cmd", .summary = "does things", .run = command});
    check_header(cmd);
    CHECK(cmd.run == command);
}
