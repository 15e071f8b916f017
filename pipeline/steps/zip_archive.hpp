// The zip module's entry point: the archive bytes of entries already sorted and checked (zip_writer.hpp's
// make_zip does both, then calls this). Loaded on first use (core/lazy_module.hpp): libzip brings OpenSSL, which a
// build that makes no zip would otherwise load at every start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace af::steps {

struct ZipArchiveEntry {
    const char* name;
    const uint8_t* data;
    size_t size;
    bool utf8; // the name is UTF-8 (flagged so); otherwise its bytes are stored as they are
};

// False with `error` set (starting "zip: ") when libzip fails; never throws.
extern "C" using ZipArchiveFn = bool(*)(const ZipArchiveEntry* entries, size_t count, bool deflate, int level,
                                        std::vector<uint8_t>* out, std::string* error);
inline constexpr const char* kZipArchive = "assetforge_zip_archive_v1";
inline constexpr const char* kZipModule = "libassetforge-zip.so";

} // namespace af::steps
