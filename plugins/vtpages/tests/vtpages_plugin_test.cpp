// The built module through its C entry point: the `pages` command and the
// three stages, with the SDK's fake host services table.
#include "fixture.hpp"
#include "pages_census.hpp"
#include "pages_reader.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"
#include "host/host_services.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <dlfcn.h>

#include <fstream>
#include <map>

using namespace af::vtpages;
using namespace vtpages_test;
namespace fs = std::filesystem;

namespace {

struct Module {
    void* lib = nullptr;
    const af_plugin* plugin = nullptr;
    // PNGs (cover masks) are written by the real host's PNG writer, as in a build.
    af::sdk::testing::FakeHost host;
    Module() {
        host.on_write_texture = af::host::services()->write_texture;
        lib = dlopen(VTPAGES_MODULE, RTLD_NOW | RTLD_LOCAL);
        REQUIRE(lib);
        auto entry = reinterpret_cast<af_plugin_entry_fn>(dlsym(lib, AF_ENTRY_SYMBOL));
        REQUIRE(entry);
        plugin = entry(host);
        REQUIRE(plugin);
    }
    ~Module() {
        if (lib) dlclose(lib);
    }
    const af_stage& stage(const char* name) const {
        for (uint32_t i = 0; i < plugin->stage_count; ++i)
            if (std::string(plugin->stages[i]->name) == name) return *plugin->stages[i];
        FAIL("no stage " << name);
        throw 0;
    }
};

struct Item {
    std::string name;
    std::vector<uint8_t> bytes;
    std::map<std::string, std::string> meta;
};

// Runs a stage over items and collects what it emits.
struct StageRun {
    std::vector<Item> out;
    af_status status = AF_OK;
    af_error error{};
    StageRun(const Module& m, const af_stage& s, const std::vector<Item>& in,
             std::vector<std::pair<std::string, std::string>> params, const std::string& base_dir = "") {
        std::vector<std::vector<af_kv>> metas(in.size());
        std::vector<af_item> items(in.size());
        std::vector<const af_item*> ptrs;
        for (size_t i = 0; i < in.size(); ++i) {
            for (auto& [k, v] : in[i].meta) metas[i].push_back({k.c_str(), v.c_str()});
            af::sdk::init_header(items[i]);
            items[i].name = in[i].name.c_str();
            items[i].bytes = in[i].bytes.data();
            items[i].size = in[i].bytes.size();
            items[i].meta = metas[i].data();
            items[i].meta_count = uint32_t(metas[i].size());
            ptrs.push_back(&items[i]);
        }
        af_stage_io io{};
        af::sdk::init_header(io);
        io.inputs = ptrs.data();
        io.input_count = uint32_t(ptrs.size());
        io.base_dir = base_dir.c_str();
        io.ctx = this;
        io.emit = [](void* ctx, const af_item* it) {
            Item copy;
            copy.name = it->name;
            copy.bytes.assign(it->bytes, it->bytes + it->size);
            for (uint32_t i = 0; i < it->meta_count; ++i) copy.meta[it->meta[i].key] = it->meta[i].value;
            static_cast<StageRun*>(ctx)->out.push_back(std::move(copy));
            return AF_OK;
        };
        std::vector<af_kv> kv;
        for (auto& [k, v] : params) kv.push_back({k.c_str(), v.c_str()});
        af_options opts{kv.data(), uint32_t(kv.size())};
        status = s.run(m.host, &io, &opts, &error);
    }
};

Item file_item(const std::string& name) { return {name, read_bytes(data_dir() / name), {}}; }

} // namespace

TEST_CASE("module registers one `pages` command and three stages", "[plugin]") {
    Module m;
    CHECK(std::string(m.plugin->name) == "vtpages");
    REQUIRE(m.plugin->command_count == 1);
    CHECK(std::string(m.plugin->commands[0]->name) == "pages");
    CHECK(m.plugin->stage_count == 3);
    CHECK(m.stage("pages.extract").kind == AF_STAGE_MAP);
    CHECK(m.stage("pages.build").kind == AF_STAGE_GATHER);
    CHECK(m.stage("pages.repack").kind == AF_STAGE_MAP);
}

TEST_CASE("the `pages` command runs through the entry point with the host's parallel_for", "[plugin]") {
    Module m;
    std::vector<std::string> files = {"pages", "selftest"};
    for (auto& n : fixture_names()) files.push_back((data_dir() / n).string());
    std::vector<const char*> argv;
    for (auto& s : files) argv.push_back(s.c_str());
    CHECK(m.plugin->commands[0]->run(m.host, int32_t(argv.size()), argv.data()) == 0);
    CHECK(m.host.parallel_calls() == 1);
    const char* bad[] = {"pages", "frobnicate"};
    CHECK(m.plugin->commands[0]->run(m.host, 2, bad) == 2);
}

TEST_CASE("pages.extract emits one item per page with level/mip/x/y, and pages.build gathers them back",
          "[plugin][stage]") {
    Module m;
    for (const char* name : {"l8_s1_bfs.pages", "l7_s3_dfs_slack.pages"}) {
        INFO(name);
        auto man = manifest<nlohmann::json>(name);
        StageRun ex(m, m.stage("pages.extract"), {file_item(name)}, {{"what", "payload"}});
        REQUIRE(ex.status == AF_OK);
        REQUIRE(ex.out.size() == man["pages"].get<size_t>());
        for (auto& it : ex.out) {
            CHECK(it.meta.at("mip") == it.meta.at("level"));
            CHECK(it.name == it.meta.at("level") + "_" + it.meta.at("x") + "_" + it.meta.at("y") + ".bin");
        }
        const std::string order = man["order"];
        StageRun b(m, m.stage("pages.build"), ex.out, {{"order", order}});
        REQUIRE(b.status == AF_OK);
        REQUIRE(b.out.size() == 1);
        auto& built = b.out[0].bytes;
        Census c = take_census(PagesFile({built.data(), built.size()}));
        CHECK(c.pages == man["pages"].get<uint64_t>());
        if (man["slack_bytes"] == 0)
            CHECK(built == read_bytes(data_dir() / name));
        else
            CHECK(c.slack == 0);
    }
}

TEST_CASE("pages.extract: blocks, cover PNGs, and level filter", "[plugin][stage]") {
    Module m;
    const std::string name = "l5_s2_bfs_slack_jxr.pages";
    auto man = manifest<nlohmann::json>(name);
    StageRun blocks(m, m.stage("pages.extract"), {file_item(name)}, {{"what", "blocks"}, {"level", "0"}});
    REQUIRE(blocks.status == AF_OK);
    size_t want = 0;
    for (auto& p : man["page_list"])
        if (p["level"] == 0)
            for (auto& s : p["sizes"]) want += s.get<int>() > 0;
    CHECK(blocks.out.size() == want);
    for (auto& it : blocks.out) CHECK(it.meta.at("level") == "0");
    StageRun cover(m, m.stage("pages.extract"), {file_item(name)}, {{"what", "cover"}});
    REQUIRE(cover.status == AF_OK);
    CHECK(cover.out.size() == man["cover_masks"].get<size_t>());
    for (auto& it : cover.out) {
        REQUIRE(it.bytes.size() > 25);
        CHECK(it.bytes[24] == 1); // a 1-bit grey PNG from the host's writer
    }
    StageRun px(m, m.stage("pages.extract"), {file_item(name)}, {{"what", "pixels"}});
    CHECK(px.status == AF_ERR_UNSUPPORTED);
    CHECK_THAT(std::string(px.error.message), Catch::StartsWith("unsupported: JXR pixel decoding"));
    StageRun bad(m, m.stage("pages.extract"), {file_item(name)}, {{"what", "everything"}});
    CHECK(bad.status == AF_ERR_USAGE);
    auto broken = file_item(name);
    broken.bytes[72] ^= 0xFF; // the top page's node magic
    StageRun corrupt(m, m.stage("pages.extract"), {broken}, {});
    CHECK(corrupt.status == AF_ERR_INVALID_DATA);
    CHECK(corrupt.out.empty());
}

TEST_CASE("pages.repack applies a replacement directory", "[plugin][stage]") {
    Module m;
    TempDir t;
    const std::string name = "l4_s4_dfs_slack.pages";
    auto f = PagesFile::open(data_dir() / name);
    // Drop the whole subtree under one level-2 page.
    PageKey victim{};
    walk_tree(f, [&](const WalkStep& s) {
        if (s.page.node.level == 2 && victim.level == 0) victim = s.page.key();
    });
    fs::create_directories(t.path / "rep");
    std::ofstream(t.path / "rep" / af::sdk::format("2_%u_%u.remove", victim.x, victim.y));
    StageRun r(m, m.stage("pages.repack"), {file_item(name)}, {{"replacements", "rep"}}, t.path.string());
    REQUIRE(r.status == AF_OK);
    REQUIRE(r.out.size() == 1);
    CHECK(std::stoi(r.out[0].meta.at("removed")) >= 1);
    auto& b = r.out[0].bytes;
    PagesFile g({b.data(), b.size()});
    take_census(g);
    CHECK_FALSE(g.find(victim));
    StageRun missing(m, m.stage("pages.repack"), {file_item(name)}, {});
    CHECK(missing.status == AF_ERR_USAGE);
}
