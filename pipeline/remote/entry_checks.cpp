#include "remote/entry_checks.hpp"

#include "remote/sha256.hpp"

#include <set>

namespace af::remote {

namespace {

// Well-formed UTF-8 as upstream's string type requires: no stray continuation bytes, overlong forms or surrogates.
bool is_utf8(std::string_view s) {
    for (size_t i = 0; i < s.size();) {
        const auto c = static_cast<unsigned char>(s[i]);
        const size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
        if (len == 0 || i + len > s.size()) return false;
        uint32_t cp = len == 1 ? c : c & (0x7f >> len);
        for (size_t k = 1; k < len; ++k) {
            const auto cc = static_cast<unsigned char>(s[i + k]);
            if ((cc & 0xc0) != 0x80) return false;
            cp = cp << 6 | (cc & 0x3f);
        }
        static constexpr uint32_t kMin[] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < kMin[len] || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += len;
    }
    return true;
}

} // namespace

std::optional<std::string> path_problem(std::string_view path) {
    if (path.empty()) return "is empty";
    if (!is_utf8(path)) return "is not UTF-8";
    if (path.front() == '/') return "is absolute";
    // A backslash or a drive colon would be a separator or a root on Windows.
    for (char c : path) {
        if (c == '\0') return "contains a NUL byte";
        if (c == '\\') return "contains a backslash";
        if (c == ':') return "contains a colon";
    }
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find('/', start);
        if (end == std::string_view::npos) end = path.size();
        std::string_view part = path.substr(start, end - start);
        if (part.empty()) return "has an empty component";
        if (part == "..") return "climbs out with '..'";
        if (part == ".") return "has a '.' component";
        start = end + 1;
    }
    return std::nullopt;
}

std::optional<EntryProblem> check_entry(const CacheEntry& entry, int64_t max_blob_bytes) {
    // An entry with no files is what a stray non-protobuf body can decode to; no real action has no outputs.
    if (entry.files.empty()) return EntryProblem{"entry-empty", "names no output files"};
    std::set<std::string_view> seen;
    for (const CachedFile& f : entry.files) {
        if (auto why = path_problem(f.path))
            return EntryProblem{"entry-path", "names an unsafe output path (it " + *why + ")"};
        if (!seen.insert(f.path).second) return EntryProblem{"entry-duplicate", "names one output path twice"};
        if (!is_sha256_hex(f.digest.hash))
            return EntryProblem{"entry-digest", "has a digest that is not a lowercase hex SHA-256"};
        if (f.digest.size < 0) return EntryProblem{"entry-size", "has a negative blob size"};
        if (f.digest.size > max_blob_bytes)
            return EntryProblem{"entry-too-large", "names a blob of " + std::to_string(f.digest.size) +
                                                       " bytes, over the limit of " + std::to_string(max_blob_bytes)};
    }
    return std::nullopt;
}

} // namespace af::remote
