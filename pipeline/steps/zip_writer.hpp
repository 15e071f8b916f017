// Reproducible zip archives (libzip): entries sorted by name, every entry
// dated 1980-01-01 00:00, fixed attributes; identical inputs give identical bytes.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace af::steps {

struct ZipEntry {
    std::string name; // '/'-separated, relative
    std::span<const uint8_t> data;
};

enum class ZipMethod { Store, Deflate };

// Why `name` may not be a zip entry name (absolute, "..", ".", "//", a
// trailing '/', a backslash, a drive letter, a control character), or "" when
// every extractor will keep it inside the folder it extracts to.
std::string unsafe_entry_reason(const std::string& name);

// Throws std::runtime_error on duplicate or unsafe names (see unsafe_entry_reason).
std::vector<uint8_t> make_zip(std::vector<ZipEntry> entries, ZipMethod method, int level);

} // namespace af::steps
