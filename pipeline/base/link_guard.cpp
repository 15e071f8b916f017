#include "base/link_guard.hpp"

#include "base/output_template.hpp"

#include <sys/stat.h>

#include <cstdlib>

namespace af::engine {
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
           "-D <variable>=" + link + ", or set 'follow_links: true' on the job)";
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

} // namespace af::engine
