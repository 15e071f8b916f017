// Test fixtures: `.pages` files written by an independent generator and
// their JSON manifests (see data/SOURCE.md).
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace vtpages_test {

std::filesystem::path data_dir();
std::vector<std::string> fixture_names(); // file names of every *.pages in data/
std::vector<uint8_t> read_bytes(const std::filesystem::path& p);
// The generator's data/NAME.json, parsed by Json (the tests pass nlohmann::json).
template <class Json> Json manifest(const std::string& name) {
    const auto b = read_bytes(data_dir() / (name + ".json"));
    return Json::parse(b.begin(), b.end());
}

// A fresh empty directory under the system temp dir, removed by the destructor.
struct TempDir {
    std::filesystem::path path;
    TempDir();
    ~TempDir();
};

void put_u16(std::vector<uint8_t>& b, uint64_t off, uint16_t v);
void put_u32(std::vector<uint8_t>& b, uint64_t off, uint32_t v);
uint32_t get_u32(const std::vector<uint8_t>& b, uint64_t off);
uint16_t get_u16(const std::vector<uint8_t>& b, uint64_t off);

} // namespace vtpages_test
