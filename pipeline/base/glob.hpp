// Input globs: "src/**/*.png", "textures/*.{dds,tga}" style patterns with
// '*' (within a path segment), '?', '[abc]', '**' (any number of segments)
// and '{a,b}' alternatives. Paths are '/'-separated and relative to a root.
//
// As in shell and Python globs, wildcards do not match names that start with
// a dot ('.env', '.git/'): a pattern reaches them only by naming the dot.
#pragma once

#include <filesystem>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace af::base {

struct GlobMatch {
    std::string path; // absolute, normal
    std::string name; // relative to the pattern's fixed directory: the item name
    // Non-empty when the file (or a folder on its way) is a symbolic link that
    // resolves outside the input root, or is a folder that cannot be read:
    // the message to fail this input with.
    std::string link_escape;
    // Its stat (size, mtime, inode, ctime) when the build took it while the state loaded; its up-to-date check then
    // needs no stat of its own. The build fills these, not the glob.
    bool stat_known = false;
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    int64_t ctime_ns = 0;
};

// What globs listed, for a build's no-op record (engine/build/noop_record.hpp):
// the folders whose listings decided the matches and the literal paths not
// found. `unsure`: a link, or a folder that could not be read, was met; a
// listing's stat cannot vouch for where a link leads.
struct GlobWitness {
    std::mutex mu;
    std::vector<std::string> dirs, absent;
    bool unsure = false;
    void listed(const std::string& dir) {
        std::lock_guard lk(mu);
        dirs.push_back(dir);
    }
    void missing(const std::string& path) {
        std::lock_guard lk(mu);
        absent.push_back(path);
    }
    void doubt() {
        std::lock_guard lk(mu);
        unsure = true;
    }
};

struct GlobOptions {
    // Links must resolve inside this directory (absolute). Empty: the project
    // root for patterns inside it; a pattern whose fixed directory lies outside
    // the project (an absolute path given with -D) is its own root.
    std::filesystem::path input_root;
    bool follow_links = false; // enter linked folders and read links wherever they point
    // Folders the user named on the command line (-D src=game; absolute, normal). A link at one of them is the
    // user's own choice, as if the folder it leads to had been given: followed, and that folder is then the
    // root links inside must stay in. Only a link on the named path itself: links found below are not trusted.
    std::vector<std::filesystem::path> named_folders;
    GlobWitness* witness = nullptr; // told what the walk listed (may be null)
};

// {a,b} alternatives as separate patterns (nesting allowed). Throws
// std::invalid_argument on an unbalanced '{'.
void expand_braces(const std::string& pattern, std::vector<std::string>& out);

// Fixed leading directories of a pattern ("src/tex" for "src/tex/**/*.png").
std::string glob_base(std::string_view pattern);

bool glob_match(std::string_view pattern, std::string_view path);

// Every regular file under `root` matching one of `patterns` and none of
// `excludes` (excludes match the path relative to root, or the item name),
// sorted by path, each once. Skips the state directory and AssetForge
// temporaries. `matched`, when given, receives per pattern how many files it
// matched (after excludes), so an empty pattern can be reported.
std::vector<GlobMatch> expand_globs(const std::filesystem::path& root, const std::vector<std::string>& patterns,
                                    const std::vector<std::string>& excludes, const GlobOptions& options = {},
                                    std::vector<size_t>* matched = nullptr);

} // namespace af::base
