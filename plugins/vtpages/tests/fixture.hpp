// Test fixtures: `.pages` files written by an independent generator and
// their JSON manifests (see data/SOURCE.md).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace vtpages_test {

std::filesystem::path data_dir();
std::vector<std::string> fixture_names(); // file names of every *.pages in data/
std::vector<uint8_t> read_bytes(const std::filesystem::path& p);
nlohmann::json manifest(const std::string& name);

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
