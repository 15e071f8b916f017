// The zip module (libassetforge-zip.so): libzip, which brings OpenSSL, loaded only by a build that zips.
#include "steps/zip_archive.hpp"

#include <zip.h>

#include <cstdio>
#include <cstring>
#include <fstream>
#include <memory>
#include <stdexcept>

namespace af::steps {
namespace {

[[noreturn]] void zip_fail(const std::string& what, zip_error_t* e) {
    std::string msg = what + ": " + (e ? zip_error_strerror(e) : "unknown error");
    throw std::runtime_error("zip: " + msg);
}

struct Archive {
    zip_t* za = nullptr;
    ~Archive() {
        if (za) zip_discard(za);
    }
    [[noreturn]] void fail(const std::string& what) {
        std::string msg = what + ": " + zip_strerror(za);
        throw std::runtime_error("zip: " + msg);
    }
};

// What kZipHashField holds for a member: what it is and how it was compressed.
struct Identity {
    uint8_t bytes[kZipHashFieldSize];
};
Identity identity_of(const ZipArchiveEntry& e, const ZipArchiveJob& job) {
    Identity id{};
    id.bytes[0] = 1;
    std::memcpy(id.bytes + 1, e.hash, 16);
    id.bytes[17] = job.deflate ? 8 : 0;
    id.bytes[18] = uint8_t(job.deflate ? job.level : 0);
    return id;
}

// The member of the previous archive that holds exactly what `e` would be compressed to, or -1.
zip_int64_t reusable(zip_t* previous, const ZipArchiveEntry& e, const Identity& id) {
    if (!previous) return -1;
    const zip_int64_t at = zip_name_locate(previous, e.name, ZIP_FL_ENC_RAW);
    if (at < 0) return -1;
    zip_uint16_t len = 0;
    const zip_uint8_t* field =
        zip_file_extra_field_get_by_id(previous, zip_uint64_t(at), kZipHashField, 0, &len, ZIP_FL_CENTRAL);
    if (!field || len != kZipHashFieldSize || std::memcmp(field, id.bytes, len) != 0) return -1;
    zip_stat_t st;
    if (zip_stat_index(previous, zip_uint64_t(at), 0, &st) != 0 || !(st.valid & ZIP_STAT_SIZE)) return -1;
    return st.size == e.size ? at : -1;
}

void add_member(Archive& a, zip_t* previous, const ZipArchiveEntry& e, const ZipArchiveJob& job,
                ZipArchiveStats& stats) {
    const Identity id = identity_of(e, job);
    const zip_int64_t old = reusable(previous, e, id);
    zip_source_t* s = old >= 0 ? zip_source_zip(a.za, previous, zip_uint64_t(old), ZIP_FL_COMPRESSED, 0, -1)
                      : e.data ? zip_source_buffer(a.za, e.data, e.size, 0)
                               : zip_source_file(a.za, e.file, 0, -1);
    if (!s) a.fail("cannot add " + std::string(e.name));
    // A name that is not UTF-8 is stored as its bytes, without the UTF-8 flag (which would make it invalid).
    const zip_int64_t idx = zip_file_add(a.za, e.name, s, e.utf8 ? ZIP_FL_ENC_UTF_8 : ZIP_FL_ENC_RAW);
    if (idx < 0) {
        zip_source_free(s);
        a.fail("cannot add " + std::string(e.name));
    }
    ++(old >= 0 ? stats.reused : stats.compressed);
    const auto i = zip_uint64_t(idx);
    // 1980-01-01 00:00:00, the DOS epoch: no build time leaks into the archive. The same method on a member copied
    // as it is stored keeps libzip from compressing it again.
    if (zip_file_set_dostime(a.za, i, 0, (0 << 9) | (1 << 5) | 1, 0) < 0 ||
        zip_set_file_compression(a.za, i, job.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE,
                                 job.deflate ? zip_uint32_t(job.level) : 0) < 0 ||
        zip_file_set_external_attributes(a.za, i, 0, ZIP_OPSYS_UNIX, 0100644u << 16) < 0 ||
        zip_file_extra_field_set(a.za, i, kZipHashField, ZIP_EXTRA_FIELD_NEW, id.bytes, kZipHashFieldSize,
                                 ZIP_FL_CENTRAL) < 0)
        a.fail(e.name);
}

void write_empty(const char* out) {
    // libzip deletes an archive with no entries on close; an empty zip is
    // just the end-of-central-directory record (22 bytes, all counts zero).
    char eocd[22] = {'P', 'K', 5, 6};
    std::ofstream f(out, std::ios::binary | std::ios::trunc);
    f.write(eocd, sizeof eocd);
    if (!f.flush()) throw std::runtime_error(std::string("zip: cannot write ") + out);
}

ZipArchiveStats archive(const ZipArchiveJob& job) {
    ZipArchiveStats stats;
    if (job.count == 0) {
        write_empty(job.out);
        return stats;
    }
    // Anything wrong with the previous archive only means nothing is reused.
    std::unique_ptr<zip_t, void (*)(zip_t*)> previous(nullptr, zip_discard);
    if (job.previous) previous.reset(zip_open(job.previous, ZIP_RDONLY | ZIP_CHECKCONS, nullptr));
    Archive a;
    int code = 0;
    a.za = zip_open(job.out, ZIP_CREATE | ZIP_TRUNCATE, &code);
    if (!a.za) {
        zip_error_t err;
        zip_error_init_with_code(&err, code);
        zip_fail(std::string("cannot create ") + job.out, &err);
    }
    for (size_t i = 0; i < job.count; ++i) add_member(a, previous.get(), job.entries[i], job, stats);
    // Members are read (and the previous archive's copied) here, one at a time.
    if (zip_close(a.za) < 0) a.fail("cannot finish the archive");
    a.za = nullptr;
    return stats;
}

} // namespace
} // namespace af::steps

extern "C" __attribute__((visibility("default"))) bool
assetforge_zip_archive_v2(const af::steps::ZipArchiveJob* job, af::steps::ZipArchiveStats* stats, std::string* error) {
    try {
        *stats = af::steps::archive(*job);
        return true;
    } catch (const std::exception& e) {
        *error = e.what();
        return false;
    }
}
