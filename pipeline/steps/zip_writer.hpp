// Reproducible zip archives (libzip): entries sorted by name, every entry
// dated 1980-01-01 00:00, fixed attributes; identical inputs give identical bytes.
// Members stream from their files, and an update copies the members it shares
// with the archive it replaces as they are stored: a package of a tree is
// rewritten at the cost of what changed, into the same bytes as a fresh one.
#pragma once

#include "core/content_hash.hpp"

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <vector>

namespace af::steps {

struct ZipEntry {
    std::string name; // '/'-separated, relative
    std::span<const uint8_t> data;
    // Or, with `data` empty: the file read as the archive is written, whose bytes are `size` long and hash to
    // `hash` (as the build recorded them).
    std::filesystem::path file{};
    uint64_t size = 0;
    Hash128 hash{};
};

enum class ZipMethod { Store, Deflate };

struct ZipOptions {
    ZipMethod method = ZipMethod::Deflate;
    int level = 6;
    std::filesystem::path previous{}; // an archive written here before (or empty): its members may be reused
};

struct ZipWritten {
    size_t reused = 0, compressed = 0; // members copied from `previous`; members read and compressed
};

// Why `name` may not be a zip entry name (absolute, "..", ".", "//", a
// trailing '/', a backslash, a drive letter, a control character), or "" when
// every extractor will keep it inside the folder it extracts to.
std::string unsafe_entry_reason(const std::string& name);

// Writes the archive to `out`, replacing it. Throws std::runtime_error on duplicate or unsafe names (see
// unsafe_entry_reason) and when libzip fails.
ZipWritten write_zip(std::vector<ZipEntry> entries, const ZipOptions& options, const std::filesystem::path& out);

// The archive's bytes (through a temporary file).
std::vector<uint8_t> make_zip(std::vector<ZipEntry> entries, ZipMethod method, int level);

} // namespace af::steps
