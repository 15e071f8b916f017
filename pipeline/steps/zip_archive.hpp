// The zip module's entry point: writes an archive of entries already sorted and checked (zip_writer.hpp's
// write_zip does both, then calls this). Loaded on first use (core/lazy_module.hpp): libzip brings OpenSSL, which a
// build that makes no zip would otherwise load at every start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace af::steps {

struct ZipArchiveEntry {
    const char* name;
    const uint8_t* data; // the member's bytes, or null: read from `file` while the archive is written
    size_t size;         // of `data`, or of `file` as the build hashed it
    const char* file;
    uint8_t hash[16]; // the member's content hash, kept in its central directory record (kZipHashField)
    bool utf8;        // the name is UTF-8 (flagged so); otherwise its bytes are stored as they are
};

struct ZipArchiveJob {
    const ZipArchiveEntry* entries;
    size_t count;
    bool deflate;
    int level;
    // An archive this module wrote before (or null): a member whose name, content hash, method and level it holds
    // already is copied from it as it is stored, not compressed again.
    const char* previous;
    const char* out; // written whole, then renamed into place by libzip
};

struct ZipArchiveStats {
    size_t reused = 0, compressed = 0;
};

// The extra field (central directory only) that says what a member holds: version 1, the 16-byte content hash,
// the method and the level it was compressed with. A fresh archive carries it as an updated one does, so the two
// are the same bytes; extractors skip extra fields they do not know.
inline constexpr uint16_t kZipHashField = 0x4641; // "AF"
inline constexpr uint16_t kZipHashFieldSize = 19;

// False with `error` set (starting "zip: ") when libzip fails; never throws.
extern "C" using ZipArchiveFn = bool(*)(const ZipArchiveJob* job, ZipArchiveStats* stats, std::string* error);
inline constexpr const char* kZipArchive = "assetforge_zip_archive_v2";
inline constexpr const char* kZipModule = "libassetforge-zip.so";

} // namespace af::steps
