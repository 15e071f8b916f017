// Reproducible zip archives (libzip): entries sorted by name, every entry
// dated 1980-01-01 00:00, fixed attributes; identical inputs give identical bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace af::engine {

struct ZipEntry {
    std::string name; // '/'-separated, relative
    std::span<const uint8_t> data;
};

enum class ZipMethod { Store, Deflate };

// Throws std::runtime_error on duplicate or unsafe names ("..", absolute).
std::vector<uint8_t> make_zip(std::vector<ZipEntry> entries, ZipMethod method, int level);

} // namespace af::engine
