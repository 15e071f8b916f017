// Test fixtures: package sets written by an independent generator, each with
// its manifest.json (see data/SOURCE.md).
#pragma once

#include "evr_command.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace evr_test {

std::filesystem::path data_dir();
std::filesystem::path set_dir(const std::string& set);
std::filesystem::path manifest_path(const std::string& set); // <set>/manifests/<name>
std::vector<uint8_t> read_bytes(const std::filesystem::path& p);
// The generator's <set>/manifest.json, parsed by Json (the tests pass nlohmann::json).
template <class Json> Json manifest_json(const std::string& set) {
    const auto b = read_bytes(set_dir(set) / "manifest.json");
    return Json::parse(b.begin(), b.end());
}
void write_bytes(const std::filesystem::path& p, const std::vector<uint8_t>& b);
std::string sha256_hex(const std::vector<uint8_t>& b);
// Every regular file under `root`: relative path -> sha256 of its bytes.
std::map<std::string, std::string> tree_sha256(const std::filesystem::path& root);

// Every valid set and every corruption kind present under data/.
std::vector<std::string> valid_sets();
std::vector<std::string> corrupt_kinds(); // c-<kind> folders

struct TempDir {
    std::filesystem::path path;
    TempDir();
    ~TempDir();
};

struct Run {
    int rc;
    std::string out, err;
};
// Runs `evr ARGS…` with the fake host of the calling test (or none).
Run run_evr(const std::vector<std::string>& argv, const af_host* host = nullptr);
// The same without a host in a child process whose address space may grow by
// at most `headroom` bytes: a test of a size refusal stays small even where
// the code under test would try to allocate gigabytes (it then fails, with
// the allocator's words, instead of swapping). rc -1: the child died.
Run run_evr_capped(const std::vector<std::string>& argv, uint64_t headroom);

} // namespace evr_test
