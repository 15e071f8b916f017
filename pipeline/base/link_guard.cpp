#include "base/link_guard.hpp"

#include "base/output_template.hpp"

#include <sys/stat.h>

#include <cstdlib>

namespace af::base {
namespace fs = std::filesystem;

std::string real_path(const std::string& p) {
    char* r = ::realpath(p.c_str(), nullptr);
    if (!r) return "";
    std::string s(r);
    ::free(r);
    return s;
}

bool real_inside(const std::string& p, const std::string& root) {
    if (root == "/") return !p.empty() && p[0] == '/';
    return p == root || (p.size() > root.size() && p.compare(0, root.size(), root) == 0 && p[root.size()] == '/');
}

InputRoot input_root_for(const fs::path& path, const fs::path& declared, const fs::path& project) {
    InputRoot r;
    r.lexical = !declared.empty() && path_within(path, declared.lexically_normal()) ? declared.lexically_normal()
                : path_within(path, project.lexically_normal())                     ? project.lexically_normal()
                                                                                    : path;
    r.real = real_path(r.lexical.native());
    if (r.real.empty()) r.real = r.lexical.native();
    return r;
}

std::string link_escape_message(const std::string& link, const std::string& target, const std::string& root) {
    return "input " + link + " is a symbolic link to " + target + ", outside the input root " + root +
           "; not read (a linked game folder: give the link or its real path on the command line, "
           "-D <variable>=" +
           link + ", or set 'follow_links: true' on the job)";
}

// `path` with a named folder on its way replaced by where that folder leads, when a link inside the project
// leads there (a folder outside the project is its own root already).
fs::path through_named_folder(const fs::path& path, const fs::path& project, const std::vector<fs::path>& named) {
    for (const auto& folder : named) {
        if (!path_within(path, folder) || !path_within(folder, project)) continue;
        fs::path at = project;
        bool linked = false;
        for (const auto& part : folder.lexically_relative(project)) {
            at /= part;
            struct stat st;
            if (::lstat(at.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) linked = true;
        }
        std::string real = linked ? real_path(folder.native()) : "";
        if (real.empty()) return path;
        return (fs::path(real) / path.lexically_relative(folder)).lexically_normal();
    }
    return path;
}

std::string escape_on_way(const InputRoot& root, const fs::path& path) {
    fs::path at = root.lexical;
    for (const auto& part : path.lexically_relative(root.lexical)) {
        if (part.empty() || part == ".") continue;
        at /= part;
        struct stat st;
        if (::lstat(at.c_str(), &st) != 0) return "";
        if (!S_ISLNK(st.st_mode)) continue;
        std::string target = real_path(at.native());
        if (!target.empty() && !real_inside(target, root.real))
            return link_escape_message(at.native(), target, root.real);
    }
    return "";
}

} // namespace af::base
