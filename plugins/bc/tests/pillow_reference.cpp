#include "pillow_reference.hpp"

#include <catch2/catch.hpp>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <random>
#include <unistd.h>

namespace af::bc::test {

namespace fs = std::filesystem;

std::optional<std::vector<std::vector<uint8_t>>> decode_or_skip(const std::vector<fs::path>& dds_files) {
    std::string why;
    auto r = pillow_decode(dds_files, why);
    if (!r) {
        if (why.rfind("skip:", 0) == 0)
            WARN("Pillow cross-check skipped: " << why);
        else
            FAIL(why);
    }
    return r;
}

ScratchDir::ScratchDir() {
    static std::atomic<int> counter{0};
    path = fs::temp_directory_path() / ("bptc_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    fs::create_directories(path);
}
ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
}

std::optional<std::vector<std::vector<uint8_t>>> pillow_decode(const std::vector<fs::path>& dds_files,
                                                               std::string& why_not) {
    const fs::path python = "/usr/bin/python3";
    if (!fs::exists(python)) {
        why_not = "skip: /usr/bin/python3 not installed";
        return std::nullopt;
    }
    const fs::path script = fs::path(BC_TEST_DATA).parent_path() / "pillow_dds_decode.py";
    std::string cmd = python.string() + " '" + script.string() + "'";
    std::vector<fs::path> outs;
    for (const auto& f : dds_files) {
        outs.push_back(fs::path(f).replace_extension(".rgba"));
        cmd += " '" + f.string() + "' '" + outs.back().string() + "'";
    }
    const int rc = std::system(cmd.c_str());
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == 77) {
        why_not = "skip: Pillow (python3-pil) not installed";
        return std::nullopt;
    }
    if (rc != 0) {
        why_not = "Pillow failed on the test's DDS files: " + cmd;
        return std::nullopt; // caller turns this into a failure unless it is the skip case
    }
    std::vector<std::vector<uint8_t>> result;
    for (const auto& o : outs) {
        std::ifstream in(o, std::ios::binary);
        result.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return result;
}

} // namespace af::bc::test
