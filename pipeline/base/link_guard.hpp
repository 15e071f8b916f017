// Symbolic links that lead out of an input root: the check globs and
// file-typed step parameters share, so nothing outside the project is read
// through a link unless a job says `follow_links: true`.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace af::base {

// The resolved path, or "" when it does not resolve (dangling, missing).
std::string real_path(const std::string& p);

// `p` equals `root` or lies below it (both resolved, no trailing '/').
bool real_inside(const std::string& p, const std::string& root);

// Where links must stay for `path`: the job's declared input root if `path`
// lies in it, else the project for paths in the project, else `path` itself
// (an absolute path the user gave on purpose). Both forms: lexical and resolved.
struct InputRoot {
    std::filesystem::path lexical;
    std::string real;
};
InputRoot input_root_for(const std::filesystem::path& path, const std::filesystem::path& declared,
                         const std::filesystem::path& project);

// `path` with a folder the user named on the command line (GlobOptions::named_folders) replaced by where that
// folder leads, when a link inside the project leads there; else `path` as it is.
std::filesystem::path through_named_folder(const std::filesystem::path& path, const std::filesystem::path& project,
                                           const std::vector<std::filesystem::path>& named);

// The message an input reached through `link` (resolving to `target`) fails with.
std::string link_escape_message(const std::string& link, const std::string& target, const std::string& root);

// The first link between root.lexical and `path` (inclusive) that resolves
// outside root.real, as a message; "" when there is none.
std::string escape_on_way(const InputRoot& root, const std::filesystem::path& path);

} // namespace af::base
