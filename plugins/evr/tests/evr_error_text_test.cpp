// Every `evr` command's failure names the file, entry or operation at fault:
// no standard-library exception text reaches the user on its own.
#include "fixture.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

using namespace evr_test;
namespace fs = std::filesystem;

TEST_CASE("evr failures never show bare standard-library text", "[errors]") {
    TempDir t;
    const fs::path empty = t.path / "empty";
    fs::create_directories(empty);
    std::vector<std::vector<std::string>> runs;
    for (const auto& kind : corrupt_kinds()) {
        const std::string set = "c-" + kind, name = manifest_json<nlohmann::json>(set)["name"],
                          d = set_dir(set).string();
        runs.push_back({"list", d, name});
        runs.push_back({"verify", d, name});
        runs.push_back({"verify", set_dir("s1").string(), manifest_json<nlohmann::json>("s1")["name"], "--against", d});
        runs.push_back({"extract", d, name, "--out", (t.path / "x").string()});
        runs.push_back({"replace", d, name, "--from", empty.string(), "--out", (t.path / "o").string()});
        runs.push_back({"install", d, (t.path / "g").string(), name});
    }
    // A partial --from on a one-file-per-frame set (the layout that once ended
    // in a bare "map::at"), with a DDS too short for a raw texture.
    // Held in a variable: a range-for over a member of a temporary would walk freed memory.
    const auto manifest = manifest_json<nlohmann::json>("f1");
    for (const auto& f : manifest["files"])
        if (f["kind"] == "rawbc-dds") {
            const std::string rel = f["extract_path"];
            write_bytes(t.path / "partial" / rel, std::vector<uint8_t>(200, 0));
            break;
        }
    runs.push_back({"replace", set_dir("f1").string(), manifest_json<nlohmann::json>("f1")["name"], "--from",
                    (t.path / "partial").string(), "--out", (t.path / "p").string()});
    runs.push_back({"restore", (t.path / "g").string(), "0123456789abcdef"});
    runs.push_back({"build", (t.path / "nothing").string(), "--out", (t.path / "b").string(), "--name", "x"});
    runs.push_back({"list", (t.path / "no-such").string(), "0123456789abcdef"});
    for (const auto& argv : runs) {
        auto r = run_evr(argv);
        std::string line;
        for (const auto& a : argv) line += a + " ";
        INFO(line << "\n" << r.err);
        if (argv[0] != "list") CHECK(r.rc != 0); // list reads no frame: frame damage is not its to see
        if (r.rc == 0) continue;
        for (const char* bad : {"std::", "map::at", "_M_range_check", "basic_string", "stoi", "stoull"})
            CHECK_THAT(r.err, !Catch::Contains(bad));
        CHECK_THAT(r.err, Catch::StartsWith("error: ") || Catch::StartsWith("evr "));
    }
}
