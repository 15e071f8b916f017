#include "tree_entry.hpp"

#include "evr_format.hpp"

#include "assetforge/error.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <sys/stat.h>
#include <unistd.h>

namespace af::evr {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void bad(const std::string& rel, const std::string& why) {
    sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET, rel + ": " + why);
}

std::vector<std::string> split(const std::string& rel) {
    std::vector<std::string> parts;
    size_t start = 0;
    while (start <= rel.size()) {
        size_t end = rel.find('/', start);
        if (end == std::string::npos) end = rel.size();
        if (end > start) parts.push_back(rel.substr(start, end - start));
        start = end + 1;
    }
    return parts;
}

} // namespace

TreeEntry parse_tree_path(const std::string& rel) {
    const char* layout = "expected [<group>/]<type hex>/<file hex>[.ext]";
    const std::vector<std::string> parts = split(rel);
    if (parts.size() != 2 && parts.size() != 3) bad(rel, layout);
    TreeEntry e;
    e.where = rel;
    if (parts.size() == 3) {
        const std::string& g = parts[0];
        if (g.empty() || g.size() > 9 || !std::all_of(g.begin(), g.end(), [](char c) { return c >= '0' && c <= '9'; }))
            bad(rel, std::string(layout) + " (the group is a decimal frame index)");
        e.group = std::stoll(g);
    }
    const std::string& type = parts[parts.size() - 2];
    const std::string& name = parts.back();
    const size_t dot = name.find('.');
    const std::string stem = name.substr(0, dot);
    if (dot != std::string::npos) {
        e.ext = name.substr(dot);
        std::transform(e.ext.begin(), e.ext.end(), e.ext.begin(),
                       [](unsigned char c) { return char(std::tolower(c)); });
    }
    if (!parse_symbol(type, e.type) || !parse_symbol(stem, e.file))
        bad(rel, "directory and file names must be hex symbols (1-16 hex digits)");
    return e;
}

void check_entry_size(const TreeEntry& e, uint64_t size, const Limits& limits, const std::string& where) {
    // A DDS given for a raw BC texture is stored without its header, at most
    // the 148 bytes of a DX10 one; the exact check follows the stripping.
    const uint64_t header = e.type == kTypeRawBc && e.ext == ".dds" ? 148 : 0;
    if (size > frame_capacity(limits) + header)
        bad(where.empty() ? e.where : where, over_frame_capacity(size - header, limits));
}

void check_unique(const std::vector<TreeEntry>& entries) {
    std::map<std::pair<uint64_t, uint64_t>, const TreeEntry*> seen;
    for (const auto& e : entries) {
        auto [it, fresh] = seen.emplace(std::pair(e.type, e.file), &e);
        if (!fresh) bad(e.where, "names the same type and file symbols as " + it->second->where);
    }
}

std::vector<TreeEntry> read_tree(const fs::path& root, const Limits& limits) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, root.string() + ": not a directory");
    std::vector<std::string> names;
    for (auto it = fs::recursive_directory_iterator(root, ec); !ec && it != fs::recursive_directory_iterator();
         it.increment(ec)) {
        std::error_code e2;
        const fs::file_status st = it->symlink_status(e2);
        if (e2) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, it->path().string() + ": cannot examine: " + e2.message());
        if (fs::is_symlink(st))
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      it->path().string() + ": a symbolic link; the tree's files must be its own");
        if (fs::is_directory(st)) continue;
        // A FIFO would block the read, a device would be read without end: neither is a file of the set.
        if (!fs::is_regular_file(st))
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                      it->path().string() + ": not a regular file (a FIFO, socket or device); the tree holds files");
        names.push_back(it->path().lexically_relative(root).generic_string());
    }
    if (ec) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, root.string() + ": " + ec.message());
    std::sort(names.begin(), names.end());
    // Every size is checked before the first byte is read: a tree with one
    // file too large fails at once, not after reading gigabytes of the rest.
    // A sparse 8 GiB file costs no disk: its size alone refuses it.
    std::vector<TreeEntry> out;
    out.reserve(names.size());
    for (const auto& rel : names) {
        TreeEntry e = parse_tree_path(rel);
        const fs::path p = root / rel;
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0)
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET, p.string() + ": cannot examine: " + std::strerror(errno));
        check_entry_size(e, uint64_t(st.st_size), limits, p.string());
        out.push_back(std::move(e));
    }
    for (TreeEntry& e : out) {
        const fs::path p = root / e.where;
        const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
        if (fd < 0) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, p.string() + ": cannot read: " + std::strerror(errno));
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET, p.string() + ": not a regular file (it changed while read)");
        }
        // Again on what is open: the file may have grown since it was examined.
        try {
            check_entry_size(e, uint64_t(st.st_size), limits, p.string());
        } catch (...) {
            ::close(fd);
            throw;
        }
        e.bytes.resize(size_t(st.st_size));
        size_t got = 0;
        while (got < e.bytes.size()) {
            const ssize_t n = ::read(fd, e.bytes.data() + got, e.bytes.size() - got);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) {
                const int err = n < 0 ? errno : 0;
                ::close(fd);
                sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                          p.string() + (err ? std::string(": read failed: ") + std::strerror(err)
                                            : std::string(": shorter than its size (it changed while read)")));
            }
            got += size_t(n);
        }
        ::close(fd);
    }
    check_unique(out);
    return out;
}

} // namespace af::evr
