#include "steps/zip_writer.hpp"

#include "base/name_text.hpp"
#include "base/user_words.hpp"
#include "core/lazy_module.hpp"
#include "steps/zip_archive.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
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

ZipWritten write_zip(std::vector<ZipEntry> entries, const ZipOptions& options, const std::filesystem::path& out) {
    std::sort(entries.begin(), entries.end(), [](const ZipEntry& a, const ZipEntry& b) { return a.name < b.name; });
    for (size_t i = 0; i < entries.size(); ++i) {
        const auto& n = entries[i].name;
        if (auto why = unsafe_entry_reason(n); !why.empty())
            throw std::runtime_error("zip: entry name '" + base::printable_name(n) + "' " + why +
                                     "; entries must be relative paths that stay inside the archive");
        if (i && entries[i - 1].name == n) throw std::runtime_error("zip: two inputs have the entry name '" + n + "'");
    }
    std::vector<ZipArchiveEntry> list;
    list.reserve(entries.size());
    for (auto& e : entries) {
        const bool in_memory = e.file.empty();
        if (in_memory) e.hash = hash_bytes(e.data), e.size = e.data.size();
        ZipArchiveEntry a{e.name.c_str(),
                          in_memory ? e.data.data() : nullptr,
                          size_t(e.size),
                          in_memory ? nullptr : e.file.c_str(),
                          {},
                          base::is_utf8(e.name)};
        std::memcpy(a.hash, &e.hash.lo, 8), std::memcpy(a.hash + 8, &e.hash.hi, 8);
        if (in_memory && !a.data) a.data = reinterpret_cast<const uint8_t*>(""); // an empty member, not a file
        list.push_back(a);
    }
    const bool deflate = options.method == ZipMethod::Deflate;
    const ZipArchiveJob job{list.data(),
                            list.size(),
                            deflate,
                            deflate ? options.level : 0,
                            options.previous.empty() ? nullptr : options.previous.c_str(),
                            out.c_str()};
    std::string error;
    auto archive = reinterpret_cast<ZipArchiveFn>(module_symbol(kZipModule, kZipArchive, error));
    if (!archive) throw std::runtime_error("zip: " + error);
    ZipArchiveStats stats;
    if (!archive(&job, &stats, &error)) throw std::runtime_error(error);
    return {stats.reused, stats.compressed};
}

std::vector<uint8_t> make_zip(std::vector<ZipEntry> entries, ZipMethod method, int level) {
    std::string name = (std::filesystem::temp_directory_path() / "af-zip-XXXXXX").string();
    const int fd = ::mkstemp(name.data());
    if (fd < 0) throw std::runtime_error("zip: cannot make a temporary file: " + std::string(std::strerror(errno)));
    ::close(fd);
    struct Remove {
        std::string path;
        ~Remove() { ::unlink(path.c_str()); }
    } remove{name};
    write_zip(std::move(entries), {method, level, {}}, name);
    std::ifstream in(name, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

} // namespace af::steps
