// The zip module (libassetforge-zip.so): libzip, which brings OpenSSL, loaded only by a build that zips.
#include "steps/zip_archive.hpp"

#include <zip.h>

#include <cstdio>
#include <memory>
#include <stdexcept>

namespace af::steps {
namespace {

[[noreturn]] void zip_fail(const std::string& what, zip_error_t* e) {
    std::string msg = what + ": " + (e ? zip_error_strerror(e) : "unknown error");
    throw std::runtime_error("zip: " + msg);
}

std::vector<uint8_t> archive(const ZipArchiveEntry* entries, size_t count, bool deflate, int level) {
    zip_error_t err;
    zip_error_init(&err);
    zip_source_t* mem = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!mem) zip_fail("cannot create buffer", &err);
    std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> mem_guard(mem, zip_source_free);
    zip_source_keep(mem); // survives zip_close so the bytes can be read back
    zip_t* za = zip_open_from_source(mem, ZIP_TRUNCATE, &err);
    if (!za) zip_fail("cannot open archive", &err);
    for (size_t i = 0; i < count; ++i) {
        const ZipArchiveEntry& e = entries[i];
        zip_source_t* s = zip_source_buffer(za, e.data, e.size, 0);
        if (!s) {
            zip_discard(za);
            zip_fail("cannot add " + std::string(e.name), zip_get_error(za));
        }
        // A name that is not UTF-8 is stored as its bytes, without the UTF-8 flag (which would make it invalid).
        zip_int64_t idx = zip_file_add(za, e.name, s, e.utf8 ? ZIP_FL_ENC_UTF_8 : ZIP_FL_ENC_RAW);
        if (idx < 0) {
            zip_source_free(s);
            std::string msg = zip_strerror(za);
            zip_discard(za);
            throw std::runtime_error("zip: cannot add " + std::string(e.name) + ": " + msg);
        }
        // 1980-01-01 00:00:00, the DOS epoch: no build time leaks into the archive.
        if (zip_file_set_dostime(za, zip_uint64_t(idx), 0, (0 << 9) | (1 << 5) | 1, 0) < 0 ||
            zip_set_file_compression(za, zip_uint64_t(idx), deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                     deflate ? zip_uint32_t(level) : 0) < 0 ||
            zip_file_set_external_attributes(za, zip_uint64_t(idx), 0, ZIP_OPSYS_UNIX, 0100644u << 16) < 0) {
            std::string msg = zip_strerror(za);
            zip_discard(za);
            throw std::runtime_error("zip: " + std::string(e.name) + ": " + msg);
        }
    }
    if (zip_close(za) < 0) {
        std::string msg = zip_strerror(za);
        zip_discard(za);
        throw std::runtime_error("zip: cannot finish archive: " + msg);
    }
    std::vector<uint8_t> out;
    if (zip_source_open(mem) < 0) zip_fail("cannot reopen buffer", zip_source_error(mem));
    zip_source_seek(mem, 0, SEEK_END);
    zip_int64_t size = zip_source_tell(mem);
    zip_source_seek(mem, 0, SEEK_SET);
    if (size > 0) {
        out.resize(size_t(size));
        if (zip_source_read(mem, out.data(), zip_uint64_t(size)) != size) {
            zip_source_close(mem);
            zip_fail("cannot read buffer", zip_source_error(mem));
        }
    }
    zip_source_close(mem);
    return out;
}

} // namespace
} // namespace af::steps

extern "C" __attribute__((visibility("default"))) bool
assetforge_zip_archive_v1(const af::steps::ZipArchiveEntry* entries, size_t count, bool deflate, int level,
                          std::vector<uint8_t>* out, std::string* error) {
    try {
        *out = af::steps::archive(entries, count, deflate, level);
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
        return false;
    }
}
