#include "base/glob.hpp"

#include "assetforge/atomic_file.hpp"
#include "base/link_guard.hpp"
#include "base/output_template.hpp"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <unordered_set>

namespace af::base {
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

} // namespace

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
        if (p[i] == '{')
            ++depth;
        else if (p[i] == '}' && --depth == 0) {
            close = i;
            break;
        } else if (p[i] == ',' && depth == 1)
            commas.push_back(i);
    }
    if (close == std::string::npos) throw std::invalid_argument("unbalanced '{' in pattern '" + p + "'");
    size_t s = open + 1;
    commas.push_back(close);
    for (size_t c : commas) {
        expand_braces(p.substr(0, open) + p.substr(s, c - s) + p.substr(close + 1), out);
        s = c + 1;
    }
}

bool hidden(std::string_view name) { return !name.empty() && name[0] == '.'; }

// `hidden_rule`: wildcards never match a leading dot (include patterns);
// exclude patterns match hidden names like any other.
namespace {

bool match_segment(std::string_view pat, std::string_view s, bool hidden_rule) {
    if (hidden_rule && hidden(s) && !hidden(pat)) return false;
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
                 size_t si, bool hidden_rule) {
    if (pi == pat.size()) return si == path.size();
    if (pat[pi] == "**") {
        for (size_t k = si; k <= path.size(); ++k) {
            if (match_parts(pat, pi + 1, path, k, hidden_rule)) return true;
            if (k < path.size() && hidden_rule && hidden(path[k])) return false; // ** does not enter dot-folders
        }
        return false;
    }
    if (si == path.size()) return false;
    return match_segment(pat[pi], path[si], hidden_rule) && match_parts(pat, pi + 1, path, si + 1, hidden_rule);
}

// Could a file below the folder `path` match `pat`? (Decides whether a
// linked folder would have been walked.)
bool match_below(const std::vector<std::string_view>& pat, size_t pi, const std::vector<std::string_view>& path,
                 size_t si) {
    if (si == path.size()) return pi < pat.size();
    if (pi == pat.size()) return false;
    if (pat[pi] == "**") return true;
    return match_segment(pat[pi], path[si], true) && match_below(pat, pi + 1, path, si + 1);
}

std::string unreadable_message(const std::string& path, int err) {
    return "input folder " + (path.empty() ? std::string("/") : path) + " cannot be read (" + std::strerror(err) +
           "); its files are neither built nor removed as stale until it can";
}

bool skip_name(std::string_view name) { return name == ".assetforge" || name.starts_with(sdk::kTempPrefix); }

bool names_a_dot(const std::vector<std::string_view>& parts) {
    return std::any_of(parts.begin(), parts.end(), [](std::string_view p) { return hidden(p); });
}

// One pattern's walk: the files it visits and the links it meets.
struct Walk {
    const std::vector<std::string_view>* rest_parts = nullptr; // pattern below its fixed directory
    bool recursive = false, dot_ok = false, follow = false;
    std::string real_root;                              // links must resolve inside (unless follow)
    std::vector<std::pair<uint64_t, uint64_t>> entered; // (dev, ino) of linked folders followed: no cycles
    GlobWitness* witness = nullptr;
};

// Calls fn(full path, name below base, link escape message) for every
// regular file in `dir` (and below it when recursive), skipping the state
// directory, temporaries and dot-names the pattern cannot match. Linked
// folders are entered only with follow_links; one that resolves outside the
// input root and could hold matches is reported as a failing input instead.
// readdir's d_type spares a stat per entry: the walk is a large part of a
// no-op build.
template <class Fn> void walk(const std::string& dir, size_t base_len, Walk& w, Fn& fn) {
    DIR* d = ::opendir(dir.empty() ? "/" : dir.c_str()); // "" is the filesystem root
    if (!d) {
        // Vanished: nothing there. Unreadable: not "empty" (that would make
        // its files' outputs stale): a failing input of its own, when the
        // pattern could match something inside.
        if (errno == ENOENT || errno == ENOTDIR) {
            if (w.witness) w.witness->missing(dir.empty() ? "/" : dir);
            return;
        }
        const int err = errno;
        if (w.witness) w.witness->doubt();
        std::string_view rel = std::string_view(dir).substr(std::min(dir.size(), base_len + 1));
        if (rel.empty() || match_below(*w.rest_parts, 0, split(rel), 0))
            fn(dir, rel, unreadable_message(dir, err), true);
        return;
    }
    if (w.witness) w.witness->listed(dir.empty() ? "/" : dir);
    std::vector<std::string> subdirs; // entered after closedir, so deep trees hold one descriptor
    while (dirent* e = ::readdir(d)) {
        std::string_view name(e->d_name);
        if (name == "." || name == ".." || skip_name(name)) continue;
        if (!w.dot_ok && hidden(name)) continue;
        std::string full;
        full.reserve(dir.size() + 1 + name.size());
        full.append(dir).append(1, '/').append(name);
        unsigned char type = e->d_type;
        std::string escape;
        if (type == DT_UNKNOWN || type == DT_LNK) {
            struct stat st;
            if (::lstat(full.c_str(), &st) != 0) continue;
            if (S_ISLNK(st.st_mode)) {
                if (w.witness) w.witness->doubt();
                if (::stat(full.c_str(), &st) != 0) continue; // dangling: nothing can be read through it
                std::string target = real_path(full);
                std::string_view rel = std::string_view(full).substr(std::min(full.size(), base_len + 1));
                if (S_ISDIR(st.st_mode)) {
                    if (!w.recursive) continue;
                    if (w.follow) {
                        std::pair<uint64_t, uint64_t> id{uint64_t(st.st_dev), uint64_t(st.st_ino)};
                        if (std::find(w.entered.begin(), w.entered.end(), id) != w.entered.end()) continue;
                        w.entered.push_back(id);
                        subdirs.push_back(std::move(full));
                    } else if (!real_inside(target, w.real_root) && match_below(*w.rest_parts, 0, split(rel), 0)) {
                        fn(full, rel, link_escape_message(full, target, w.real_root), true);
                    }
                    continue;
                }
                if (!S_ISREG(st.st_mode)) continue;
                if (!w.follow && !real_inside(target, w.real_root))
                    escape = link_escape_message(full, target, w.real_root);
                type = DT_REG;
            } else {
                type = S_ISDIR(st.st_mode) ? DT_DIR : S_ISREG(st.st_mode) ? DT_REG : DT_UNKNOWN;
            }
        }
        if (type == DT_DIR) {
            if (w.recursive) subdirs.push_back(std::move(full));
        } else if (type == DT_REG) {
            fn(full, std::string_view(full).substr(std::min(full.size(), base_len + 1)), escape, false);
        }
    }
    ::closedir(d);
    for (const auto& sd : subdirs) walk(sd, base_len, w, fn);
}

// A pattern with no wildcard below its fixed folder: one lookup, no listing.
template <class Fn> void look_up(const fs::path& f, const std::string& rest, const Walk& w, Fn& consider) {
    struct stat st;
    if (::lstat(f.c_str(), &st) != 0) {
        const int err = errno;
        const bool not_there = err == ENOENT || err == ENOTDIR;
        if (w.witness) not_there ? w.witness->missing(f.native()) : w.witness->doubt();
        // A folder on the way that cannot be searched is not a missing file.
        if (!not_there) consider(f.native(), rest, unreadable_message(f.parent_path().native(), err), false);
        return;
    }
    std::string escape;
    if (w.witness && !S_ISREG(st.st_mode)) w.witness->doubt();
    if (S_ISLNK(st.st_mode) && !w.follow) {
        std::string target = real_path(f.native());
        if (!target.empty() && !real_inside(target, w.real_root))
            escape = link_escape_message(f.native(), target, w.real_root);
    }
    std::error_code ec;
    if (escape.empty() && !fs::is_regular_file(f, ec)) return;
    consider(f.native(), rest, escape, false);
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

namespace {
// `hidden_rule`: see match_segment (on for inputs, off for excludes).
bool match_any(std::string_view pattern, std::string_view path, bool hidden_rule) {
    std::vector<std::string> alts;
    expand_braces(std::string(pattern), alts);
    auto sp = split(path);
    for (const auto& a : alts)
        if (match_parts(split(a), 0, sp, 0, hidden_rule)) return true;
    return false;
}
bool exclude_match(std::string_view pattern, std::string_view path) { return match_any(pattern, path, false); }
} // namespace

bool glob_match(std::string_view pattern, std::string_view path) { return match_any(pattern, path, true); }

std::vector<GlobMatch> expand_globs(const fs::path& root, const std::vector<std::string>& patterns,
                                    const std::vector<std::string>& excludes, const GlobOptions& options,
                                    std::vector<size_t>* matched) {
    std::vector<GlobMatch> out;
    std::vector<std::pair<std::string, size_t>> all_alts; // alternative, index of its pattern
    for (size_t i = 0; i < patterns.size(); ++i) {
        std::vector<std::string> alts;
        expand_braces(patterns[i], alts);
        for (auto& a : alts) all_alts.emplace_back(std::move(a), i);
    }
    if (matched) matched->assign(patterns.size(), 0);
    // Only overlapping patterns can match a file twice.
    bool dedupe = all_alts.size() > 1;
    std::unordered_set<std::string> seen;
    const fs::path project = root.lexically_normal();
    for (const auto& [alt, index] : all_alts) {
        std::string base = glob_base(alt);
        fs::path base_abs = (fs::path(base).is_absolute() ? fs::path(base) : root / base).lexically_normal();
        if (options.input_root.empty()) {
            fs::path through = through_named_folder(base_abs, project, options.named_folders);
            if (options.witness && through != base_abs) options.witness->doubt();
            base_abs = std::move(through);
        }
        std::string base_str = base_abs.native();
        if (!base_str.empty() && base_str.back() == '/') base_str.pop_back();
        std::string rest = base.empty() ? alt : alt.substr(std::min(alt.size(), base.size() + 1));
        if (fs::path(alt).is_absolute() && base == "/") rest = alt.substr(1);
        auto rest_parts = split(rest);
        // Which root links must stay in: the declared one, else the project
        // when the pattern lies in it, else the pattern's own fixed folder
        // (an absolute path the user gave, e.g. with -D).
        InputRoot root_for = input_root_for(base_abs, options.input_root, project);
        Walk w;
        w.rest_parts = &rest_parts;
        w.follow = options.follow_links;
        w.dot_ok = names_a_dot(rest_parts);
        w.real_root = root_for.real;
        w.witness = options.witness;
        if (w.witness && w.follow) w.witness->doubt();
        std::string base_escape = w.follow ? "" : escape_on_way(root_for, base_abs);
        if (!base_escape.empty()) {
            if (w.witness) w.witness->doubt();
            // The pattern's own folder leads out: one failing input, and the
            // folder on the other side is not even listed.
            if (matched) ++(*matched)[index];
            if (!dedupe || seen.insert(base_str).second) out.push_back({base_str, "", base_escape});
            continue;
        }
        size_t* n = matched ? &(*matched)[index] : nullptr;
        // `folder`: a linked folder out of the root that the walk would have entered.
        auto consider = [&](const std::string& file, std::string_view rel, const std::string& escape, bool folder) {
            if (!folder && !match_parts(rest_parts, 0, split(rel), 0, true)) return;
            if (!excludes.empty()) {
                std::string from_root = fs::path(file).lexically_relative(root).generic_string();
                for (const auto& ex : excludes)
                    if (exclude_match(ex, from_root) || exclude_match(ex, rel)) return;
            }
            if (n) ++*n;
            if (!dedupe || seen.insert(file).second) out.push_back({file, std::string(rel), escape});
        };
        if (!has_magic(rest)) {
            look_up((base_abs / rest).lexically_normal(), rest, w, consider);
            continue;
        }
        w.recursive = rest.find("**") != std::string::npos || rest.find('/') != std::string::npos;
        walk(base_str, base_str.size(), w, consider);
    }
    std::sort(out.begin(), out.end(), [](const GlobMatch& a, const GlobMatch& b) { return a.path < b.path; });
    return out;
}

} // namespace af::base
