#include "steps/zip_writer.hpp"

#include "base/name_text.hpp"
#include "base/user_words.hpp"

#include <zip.h>

#include <algorithm>
#include <cctype>
#include <memory>
#include <stdexcept>
#include <string_view>

namespace af::engine {

namespace {
[[noreturn]] void zip_fail(const std::string& what, zip_error_t* e) {
    std::string msg = what + ": " + (e ? zip_error_strerror(e) : "unknown error");
    throw std::runtime_error("zip: " + msg);
}
} // namespace

std::string unsafe_entry_reason(const std::string& name) {
    if (name.empty()) return "is empty";
    for (unsigned char c : name)
        if (c < 0x20 || c == 0x7f) return "contains a control character";
    if (name[0] == '/') return "is an absolute path";
    // Extractors on Windows treat both as separators, and "C:" as a drive.
    if (name.find('\\') != std::string::npos) return "contains a backslash";
    if (name.size() >= 2 && name[1] == ':' && std::isalpha(static_cast<unsigned char>(name[0])))
        return "starts with a drive letter";
    size_t start = 0;
    while (start <= name.size()) {
        size_t end = name.find('/', start);
        if (end == std::string::npos) end = name.size();
        std::string_view part(name.data() + start, end - start);
        if (part == "..") return "contains '..'";
        if (part == ".") return "contains a '.' component";
        if (part.empty()) return end == name.size() ? "ends with '/'" : "contains '//'";
        start = end + 1;
    }
    return "";
}

std::vector<uint8_t> make_zip(std::vector<ZipEntry> entries, ZipMethod method, int level) {
    std::sort(entries.begin(), entries.end(), [](const ZipEntry& a, const ZipEntry& b) { return a.name < b.name; });
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto& n = entries[i].name;
        if (auto why = unsafe_entry_reason(n); !why.empty())
            throw std::runtime_error("zip: entry name '" + printable_name(n) + "' " + why +
                                     "; entries must be relative paths that stay inside the archive");
        if (i && entries[i - 1].name == n) throw std::runtime_error("zip: two inputs have the entry name '" + n + "'");
    }
    zip_error_t err;
    zip_error_init(&err);
    if (entries.empty()) {
        // libzip deletes an archive with no entries on close; an empty zip is
        // just the end-of-central-directory record (22 bytes, all counts zero).
        std::vector<uint8_t> eocd(22, 0);
        eocd[0] = 'P', eocd[1] = 'K', eocd[2] = 5, eocd[3] = 6;
        return eocd;
    }
    zip_source_t* mem = zip_source_buffer_create(nullptr, 0, 0, &err);
    if (!mem) zip_fail("cannot create buffer", &err);
    std::unique_ptr<zip_source_t, void (*)(zip_source_t*)> mem_guard(mem, zip_source_free);
    zip_source_keep(mem); // survives zip_close so the bytes can be read back
    zip_t* za = zip_open_from_source(mem, ZIP_TRUNCATE, &err);
    if (!za) zip_fail("cannot open archive", &err);
    for (const auto& e : entries) {
        zip_source_t* s = zip_source_buffer(za, e.data.data(), e.data.size(), 0);
        if (!s) {
            zip_discard(za);
            zip_fail("cannot add " + e.name, zip_get_error(za));
        }
        // A name that is not UTF-8 is stored as its bytes, without the UTF-8 flag (which would make it invalid).
        zip_int64_t idx = zip_file_add(za, e.name.c_str(), s, is_utf8(e.name) ? ZIP_FL_ENC_UTF_8 : ZIP_FL_ENC_RAW);
        if (idx < 0) {
            zip_source_free(s);
            std::string msg = zip_strerror(za);
            zip_discard(za);
            throw std::runtime_error("zip: cannot add " + e.name + ": " + msg);
        }
        // 1980-01-01 00:00:00, the DOS epoch: no build time leaks into the archive.
        if (zip_file_set_dostime(za, zip_uint64_t(idx), 0, (0 << 9) | (1 << 5) | 1, 0) < 0 ||
            zip_set_file_compression(za, zip_uint64_t(idx), method == ZipMethod::Store ? ZIP_CM_STORE : ZIP_CM_DEFLATE,
                                     method == ZipMethod::Store ? 0 : zip_uint32_t(level)) < 0 ||
            zip_file_set_external_attributes(za, zip_uint64_t(idx), 0, ZIP_OPSYS_UNIX, 0100644u << 16) < 0) {
            std::string msg = zip_strerror(za);
            zip_discard(za);
            throw std::runtime_error("zip: " + e.name + ": " + msg);
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

} // namespace af::engine
