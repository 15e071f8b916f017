// Runs Pillow (Debian's /usr/bin/python3) over DDS files written by a test.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace af::bc::test {

// Decodes each DDS file with Pillow to RGBA8. On nullopt, `why_not` says why;
// it starts with "skip:" when Python or Pillow is not installed (the caller
// skips), anything else is a failure.
std::optional<std::vector<std::vector<uint8_t>>> pillow_decode(const std::vector<std::filesystem::path>& dds_files,
                                                               std::string& why_not);

// pillow_decode for a Catch test: nullopt, after a warning, when Pillow is
// not installed (the caller skips its cross-check); any other failure fails the test.
std::optional<std::vector<std::vector<uint8_t>>> decode_or_skip(const std::vector<std::filesystem::path>& dds_files);

// A fresh directory under the system temp dir, removed with the object.
struct ScratchDir {
    std::filesystem::path path;
    ScratchDir();
    ~ScratchDir();
};

} // namespace af::bc::test
