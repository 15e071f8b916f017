// A sealed plugin's tables as its worker describes them (host/isolation/plugin_description.hpp). The worker runs
// third-party code, so each case is a description that lies: counts the message cannot hold, strings with NUL
// bytes, capabilities without their functions, enums without choices, bytes cut off or left over.
#include "host/isolation/plugin_description.hpp"

#include "assetforge/plugin.hpp"
#include "host/plugin_registry.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <random>
#include <string>

namespace iso = af::host::isolation;
using af::host::LoadedPlugin;

namespace {

af_status no_read(const af_host*, const af_input*, const af_options*, af_texture*, af_error*) { return AF_OK; }
int32_t no_probe(const uint8_t*, uint64_t, const char*) { return AF_PROBE_NO; }
af_status no_codec(const af_host*, const af_surface*, af_surface*, const af_options*, af_error*) { return AF_OK; }
af_status no_run(const af_host*, const af_stage_io*, const af_options*, af_error*) { return AF_OK; }
int32_t no_command(const af_host*, int32_t, const char* const*) { return 0; }

// A plugin with one of everything, as a worker's registry holds it after loading.
LoadedPlugin sample() {
    static const char* const kChoices[] = {"fast", "best", nullptr};
    static const af_param kQuality = [] {
        af_param p{};
        af::sdk::init_header(p);
        p.name = "quality";
        p.type = AF_PARAM_ENUM;
        p.choices = kChoices;
        p.default_value = "fast";
        p.min = -1.5;
        p.max = 2.5;
        p.doc = "how hard to try";
        return p;
    }();
    static const af_param* const kParams[] = {&kQuality};
    static const uint32_t kFormats[] = {71, 72};
    static const char* const kMeta[] = {"frame", nullptr};
    LoadedPlugin p;
    p.name = "sample";
    p.version = "2.1";
    p.description = "one of everything";
    p.api_major = AF_API_MAJOR;
    p.api_minor = AF_API_MINOR;
    af_container c{};
    af::sdk::init_header(c);
    c.name = "smp";
    c.extensions = ".smp";
    c.caps = AF_CAN_READ;
    c.version = 3;
    c.probe = no_probe;
    c.read = no_read;
    c.read_options = kParams;
    c.read_option_count = 1;
    c.meta_keys = kMeta;
    p.containers.push_back(c);
    af_codec k{};
    af::sdk::init_header(k);
    k.name = "smp-bc";
    k.formats = kFormats;
    k.format_count = 2;
    k.decode = no_codec;
    k.encode_options = kParams;
    k.encode_option_count = 1;
    p.codecs.push_back(k);
    af_stage s{};
    af::sdk::init_header(s);
    s.name = "smp.stage";
    s.kind = AF_STAGE_GATHER;
    s.takes = AF_STAGE_TAKES_TEXTURE;
    s.run = no_run;
    s.param_decls = kParams;
    s.param_decl_count = 1;
    p.stages.push_back(s);
    af_command m{};
    af::sdk::init_header(m);
    m.name = "smp-tool";
    m.summary = "does a thing";
    m.run = no_command;
    p.commands.push_back(m);
    return p;
}

std::vector<uint8_t> described(const LoadedPlugin& p) {
    iso::Writer w;
    iso::put_description(w, p);
    return w.bytes();
}

LoadedPlugin decode(const std::vector<uint8_t>& bytes) {
    iso::Reader r(bytes);
    LoadedPlugin p;
    iso::get_description(r, p);
    return p;
}

// The header of a description: name, version, description, API.
iso::Writer header() {
    iso::Writer w;
    w.str("liar").str("1").str("").u32(AF_API_MAJOR).u32(AF_API_MINOR);
    return w;
}

} // namespace

TEST_CASE("plugin description: a worker's description rebuilds the plugin's tables, entry points unrouted") {
    const LoadedPlugin p = decode(described(sample()));
    CHECK(p.name == "sample");
    CHECK(p.version == "2.1");
    REQUIRE(p.containers.size() == 1);
    const af_container& c = p.containers[0];
    CHECK(std::string(c.name) == "smp");
    CHECK(std::string(c.extensions) == ".smp");
    CHECK(c.version == 3);
    CHECK(c.probe != nullptr);
    CHECK(c.read != nullptr);
    CHECK(c.write == nullptr);
    CHECK(c.read != no_read); // a placeholder that fails until isolation::install routes it
    REQUIRE(c.read_option_count == 1);
    const af_param& q = *c.read_options[0];
    CHECK(std::string(q.name) == "quality");
    CHECK(std::string(q.choices[1]) == "best");
    CHECK(q.choices[2] == nullptr);
    CHECK(q.min == -1.5);
    CHECK(q.max == 2.5);
    CHECK(std::string(c.meta_keys[0]) == "frame");
    CHECK(c.meta_keys[1] == nullptr);
    REQUIRE(p.codecs.size() == 1);
    CHECK(p.codecs[0].format_count == 2);
    CHECK(p.codecs[0].formats[1] == 72);
    CHECK(p.codecs[0].decode != nullptr);
    CHECK(p.codecs[0].encode == nullptr);
    CHECK(p.codecs[0].decode_options == nullptr);
    REQUIRE(p.stages.size() == 1);
    CHECK(p.stages[0].kind == AF_STAGE_GATHER);
    CHECK(p.stages[0].run == iso::sealed_stage_unsupported);
    REQUIRE(p.commands.size() == 1);
    CHECK(std::string(p.commands[0].summary) == "does a thing");
    af_error e{};
    CHECK(p.stages[0].run(nullptr, nullptr, nullptr, &e) == AF_ERR_UNSUPPORTED);
    CHECK_THAT(e.message, Catch::Contains("not routed there"));
}

TEST_CASE("plugin description: every truncation and any trailing byte is refused") {
    const std::vector<uint8_t> whole = described(sample());
    for (size_t n = 0; n < whole.size(); ++n) {
        INFO("cut to " << n << " of " << whole.size() << " bytes");
        CHECK_THROWS(decode(std::vector<uint8_t>(whole.begin(), whole.begin() + long(n))));
    }
    std::vector<uint8_t> longer = whole;
    longer.push_back(0);
    CHECK_THROWS_WITH(decode(longer), Catch::Contains("past the description's end"));
}

TEST_CASE("plugin description: counts past what the message holds are refused before anything is kept") {
    iso::Writer w = header();
    w.u32(0xffffffffu); // containers claimed, none sent
    CHECK_THROWS_WITH(decode(w.bytes()), Catch::Contains("claims 4294967295 containers"));
    iso::Writer many = header();
    many.u32(iso::kMaxDescribedItems + 1);
    many.raw(std::string(64 * 1024, '\0').data(), 64 * 1024);
    CHECK_THROWS_WITH(decode(many.bytes()), Catch::Contains("containers"));
}

TEST_CASE("plugin description: a container claiming read without a read function, or with no probe, is refused") {
    iso::Writer w = header();
    w.u32(1).str("c").u32(0).u32(0).u32(1).u32(AF_CAN_READ).u32(1 /* probe only */).u32(0).u32(0).u32(0);
    w.u32(0).u32(0).u32(0);
    CHECK_THROWS_WITH(decode(w.bytes()), Catch::Contains("claims a capability without its function"));
    iso::Writer np = header();
    np.u32(1).str("c").u32(0).u32(0).u32(1).u32(0).u32(0 /* no probe */).u32(0).u32(0).u32(0);
    np.u32(0).u32(0).u32(0);
    CHECK_THROWS_WITH(decode(np.bytes()), Catch::Contains("has no probe"));
}

TEST_CASE("plugin description: names with NUL bytes, empty names and enums without choices are refused") {
    iso::Writer nul;
    nul.str(std::string("li\0ar", 5)).str("1").str("").u32(AF_API_MAJOR).u32(AF_API_MINOR);
    CHECK_THROWS_WITH(decode(nul.bytes()), Catch::Contains("NUL"));
    iso::Writer empty;
    empty.str("").str("1").str("").u32(AF_API_MAJOR).u32(AF_API_MINOR);
    CHECK_THROWS_WITH(decode(empty.bytes()), Catch::Contains("is empty"));
    iso::Writer major;
    major.str("x").str("1").str("").u32(AF_API_MAJOR + 1).u32(0);
    CHECK_THROWS_WITH(decode(major.bytes()), Catch::Contains("plugin API"));
    // A stage with one declared enum parameter and an empty choice list.
    iso::Writer en = header();
    en.u32(0).u32(0).u32(1).str("s").u32(0).u32(1).u32(AF_STAGE_MAP).u32(0).u32(0);
    en.u32(1).u32(1).str("mode").u32(AF_PARAM_ENUM).u32(0).u32(1).u32(0).u32(0).u64(0).u64(0).u32(0);
    en.u32(0).u32(0);
    CHECK_THROWS_WITH(decode(en.bytes()), Catch::Contains("an enum without choices"));
    iso::Writer kind = header();
    kind.u32(0).u32(0).u32(1).str("s").u32(0).u32(1).u32(7).u32(0).u32(0).u32(0).u32(0).u32(0).u32(0).u32(0);
    CHECK_THROWS_WITH(decode(kind.bytes()), Catch::Contains("of kind 7"));
}

TEST_CASE("plugin description: random damage to a description is refused or decodes to tables that hold together") {
    const std::vector<uint8_t> whole = described(sample());
    std::mt19937 rng(42);
    for (int round = 0; round < 3000; ++round) {
        std::vector<uint8_t> bytes = whole;
        for (int flips = 1 + int(rng() % 4); flips > 0; --flips) bytes[rng() % bytes.size()] = uint8_t(rng());
        LoadedPlugin p;
        try {
            p = decode(bytes);
        } catch (const std::exception&) {
            continue;
        }
        CHECK(!p.name.empty());
        for (const auto& c : p.containers) {
            CHECK((c.name && *c.name && c.probe));
            for (uint32_t i = 0; i < c.read_option_count; ++i) CHECK(std::strlen(c.read_options[i]->name) > 0);
        }
        for (const auto& c : p.codecs) CHECK((c.format_count == 0 || c.formats));
    }
}

TEST_CASE("plugin description: a worker refusing with no message still gives a reason") {
    // Found by fuzz_plugin_describe: a failure status with an empty message left the host with nothing to say.
    iso::Writer w;
    w.i32(AF_ERR_USAGE).u64(AF_NO_OFFSET).str("");
    iso::Message m;
    m.op = iso::Op::Reply;
    m.body = w.bytes();
    LoadedPlugin p;
    std::string why;
    CHECK_FALSE(iso::description_reply(m, p, why));
    CHECK_THAT(why, Catch::Contains("refused") && Catch::Contains("status"));
}
