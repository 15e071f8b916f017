#include "steps/zip_writer.hpp"

#include "base/name_text.hpp"
#include "base/user_words.hpp"
#include "core/lazy_module.hpp"
#include "steps/zip_archive.hpp"

#include <algorithm>
#include <cctype>
#include <stdexcept>
#include <string_view>

namespace af::steps {

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
            throw std::runtime_error("zip: entry name '" + base::printable_name(n) + "' " + why +
                                     "; entries must be relative paths that stay inside the archive");
        if (i && entries[i - 1].name == n) throw std::runtime_error("zip: two inputs have the entry name '" + n + "'");
    }
    if (entries.empty()) {
        // libzip deletes an archive with no entries on close; an empty zip is
        // just the end-of-central-directory record (22 bytes, all counts zero).
        std::vector<uint8_t> eocd(22, 0);
        eocd[0] = 'P', eocd[1] = 'K', eocd[2] = 5, eocd[3] = 6;
        return eocd;
    }
    std::vector<ZipArchiveEntry> list;
    list.reserve(entries.size());
    for (const auto& e : entries) list.push_back({e.name.c_str(), e.data.data(), e.data.size(), base::is_utf8(e.name)});
    std::string error;
    auto archive = reinterpret_cast<ZipArchiveFn>(module_symbol(kZipModule, kZipArchive, error));
    if (!archive) throw std::runtime_error("zip: " + error);
    std::vector<uint8_t> out;
    if (!archive(list.data(), list.size(), method == ZipMethod::Deflate, level, &out, &error))
        throw std::runtime_error(error);
    return out;
}

} // namespace af::steps
