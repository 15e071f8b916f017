#include "fixture.hpp"

#include <algorithm>
#include <fstream>
#include <random>

namespace fs = std::filesystem;

namespace vtpages_test {

fs::path data_dir() { return VTPAGES_TEST_DATA; }

std::vector<std::string> fixture_names() {
    std::vector<std::string> out;
    for (auto& e : fs::directory_iterator(data_dir()))
        if (e.path().extension() == ".pages") out.push_back(e.path().filename().string());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<uint8_t> read_bytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

TempDir::TempDir() {
    std::random_device rd;
    path = fs::temp_directory_path() / ("vtpages-test-" + std::to_string(rd()) + std::to_string(rd()));
    fs::create_directories(path);
}
TempDir::~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
}

void put_u16(std::vector<uint8_t>& b, uint64_t off, uint16_t v) {
    b.at(off) = uint8_t(v);
    b.at(off + 1) = uint8_t(v >> 8);
}
void put_u32(std::vector<uint8_t>& b, uint64_t off, uint32_t v) {
    for (int i = 0; i < 4; ++i) b.at(off + i) = uint8_t(v >> (8 * i));
}
uint32_t get_u32(const std::vector<uint8_t>& b, uint64_t off) {
    return uint32_t(b.at(off)) | uint32_t(b.at(off + 1)) << 8 | uint32_t(b.at(off + 2)) << 16 |
           uint32_t(b.at(off + 3)) << 24;
}
uint16_t get_u16(const std::vector<uint8_t>& b, uint64_t off) { return uint16_t(b.at(off) | b.at(off + 1) << 8); }

} // namespace vtpages_test
