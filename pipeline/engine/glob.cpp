#include "engine/glob.hpp"

#include "core/atomic_file.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <unordered_set>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

bool has_magic(std::string_view s) { return s.find_first_of("*?[{") != std::string_view::npos; }

std::vector<std::string_view> split(std::string_view s) {
    std::vector<std::string_view> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i) {
        if (i == s.size() || s[i] == '/') {
            if (i > start) out.push_back(s.substr(start, i - start));
            start = i + 1;
        }
    }
    return out;
}

// Expands {a,b} alternatives into separate patterns (nesting allowed).
void expand_braces(const std::string& p, std::vector<std::string>& out) {
    size_t open = p.find('{');
    if (open == std::string::npos) {
        out.push_back(p);
        return;
    }
    int depth = 0;
    size_t close = std::string::npos;
    std::vector<size_t> commas;
    for (size_t i = open; i < p.size(); ++i) {
        if (p[i] == '{') ++depth;
        else if (p[i] == '}' && --depth == 0) {
            close = i;
            break;
        } else if (p[i] == ',' && depth == 1) commas.push_back(i);
    }
    if (close == std::string::npos) throw std::invalid_argument("unbalanced '{' in pattern '" + p + "'");
    size_t s = open + 1;
    commas.push_back(close);
    for (size_t c : commas) {
        expand_braces(p.substr(0, open) + p.substr(s, c - s) + p.substr(close + 1), out);
        s = c + 1;
    }
}

bool match_segment(std::string_view pat, std::string_view s) {
    size_t p = 0, i = 0, star_p = std::string_view::npos, star_i = 0;
    while (i < s.size()) {
        if (p < pat.size() && pat[p] == '*') {
            star_p = p++;
            star_i = i;
            continue;
        }
        if (p < pat.size() && pat[p] == '[') {
            size_t end = pat.find(']', p + 1);
            if (end != std::string_view::npos) {
                bool neg = pat[p + 1] == '!' || pat[p + 1] == '^';
                bool hit = false;
                for (size_t k = p + 1 + (neg ? 1 : 0); k < end; ++k) {
                    if (k + 2 < end && pat[k + 1] == '-') {
                        if (s[i] >= pat[k] && s[i] <= pat[k + 2]) hit = true;
                        k += 2;
                    } else if (pat[k] == s[i]) {
                        hit = true;
                    }
                }
                if (hit != neg) {
                    p = end + 1;
                    ++i;
                    continue;
                }
            }
        } else if (p < pat.size() && (pat[p] == '?' || pat[p] == s[i])) {
            ++p;
            ++i;
            continue;
        }
        if (star_p == std::string_view::npos) return false;
        p = star_p + 1;
        i = ++star_i;
    }
    while (p < pat.size() && pat[p] == '*') ++p;
    return p == pat.size();
}

bool match_parts(const std::vector<std::string_view>& pat, size_t pi, const std::vector<std::string_view>& path,
                 size_t si) {
    if (pi == pat.size()) return si == path.size();
    if (pat[pi] == "**") {
        for (size_t k = si; k <= path.size(); ++k)
            if (match_parts(pat, pi + 1, path, k)) return true;
        return false;
    }
    if (si == path.size()) return false;
    return match_segment(pat[pi], path[si]) && match_parts(pat, pi + 1, path, si + 1);
}

bool skip_name(std::string_view name) {
    return name == ".assetforge" || name.starts_with(kTempPrefix);
}

// Calls fn(full path, name below base) for every regular file in `dir` (and
// below it when recursive), skipping the state directory and temporaries.
// Symlinks to files count as files; symlinked directories are not entered
// (std::filesystem's default). readdir's d_type spares a stat per entry: the
// walk is a large part of a no-op build.
template <class Fn> void walk(const std::string& dir, size_t base_len, bool recursive, Fn& fn) {
    DIR* d = ::opendir(dir.empty() ? "/" : dir.c_str()); // "" is the filesystem root
    if (!d) return; // vanished or unreadable: like skip_permission_denied
    std::vector<std::string> subdirs; // entered after closedir, so deep trees hold one descriptor
    while (dirent* e = ::readdir(d)) {
        std::string_view name(e->d_name);
        if (name == "." || name == ".." || skip_name(name)) continue;
        std::string full;
        full.reserve(dir.size() + 1 + name.size());
        full.append(dir).append(1, '/').append(name);
        unsigned char type = e->d_type;
        if (type == DT_UNKNOWN || type == DT_LNK) {
            struct stat st;
            if (::lstat(full.c_str(), &st) != 0) continue;
            if (S_ISLNK(st.st_mode)) {
                if (::stat(full.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
                type = DT_REG;
            } else {
                type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
            }
        }
        if (type == DT_DIR) {
            if (recursive) subdirs.push_back(std::move(full));
        } else if (type == DT_REG) {
            fn(full, std::string_view(full).substr(std::min(full.size(), base_len + 1)));
        }
    }
    ::closedir(d);
    for (const auto& sd : subdirs) walk(sd, base_len, recursive, fn);
}

} // namespace

std::string glob_base(std::string_view pattern) {
    std::string base;
    auto parts = split(pattern);
    for (size_t i = 0; i + 1 < parts.size(); ++i) {
        if (has_magic(parts[i])) break;
        base += (base.empty() ? "" : "/") + std::string(parts[i]);
    }
    if (!pattern.empty() && pattern[0] == '/') base = "/" + base;
    return base;
}

bool glob_match(std::string_view pattern, std::string_view path) {
    std::vector<std::string> alts;
    expand_braces(std::string(pattern), alts);
    auto sp = split(path);
    for (const auto& a : alts)
        if (match_parts(split(a), 0, sp, 0)) return true;
    return false;
}

std::vector<GlobMatch> expand_globs(const fs::path& root, const std::vector<std::string>& patterns,
                                    const std::vector<std::string>& excludes) {
    std::vector<GlobMatch> out;
    std::vector<std::string> all_alts;
    for (const auto& pattern : patterns) expand_braces(pattern, all_alts);
    // Only overlapping patterns can match a file twice.
    bool dedupe = all_alts.size() > 1;
    std::unordered_set<std::string> seen;
    for (const auto& alt : all_alts) {
        std::string base = glob_base(alt);
        fs::path base_abs = (fs::path(base).is_absolute() ? fs::path(base) : root / base).lexically_normal();
        std::string base_str = base_abs.native();
        if (!base_str.empty() && base_str.back() == '/') base_str.pop_back();
        std::string rest = base.empty() ? alt : alt.substr(std::min(alt.size(), base.size() + 1));
        if (fs::path(alt).is_absolute() && base == "/") rest = alt.substr(1);
        auto rest_parts = split(rest);
        auto consider = [&](const std::string& file, std::string_view rel) {
            if (!match_parts(rest_parts, 0, split(rel), 0)) return;
            if (!excludes.empty()) {
                std::string from_root = fs::path(file).lexically_relative(root).generic_string();
                for (const auto& ex : excludes)
                    if (glob_match(ex, from_root) || glob_match(ex, rel)) return;
            }
            if (!dedupe || seen.insert(file).second) out.push_back({file, std::string(rel)});
        };
        std::error_code ec;
        if (!has_magic(rest)) {
            fs::path f = base_abs / rest;
            if (fs::is_regular_file(f, ec)) consider(f.lexically_normal().native(), rest);
            continue;
        }
        bool recursive = rest.find("**") != std::string::npos || rest.find('/') != std::string::npos;
        walk(base_str, base_str.size(), recursive, consider);
    }
    std::sort(out.begin(), out.end(), [](const GlobMatch& a, const GlobMatch& b) { return a.path < b.path; });
    return out;
}

} // namespace af::engine
