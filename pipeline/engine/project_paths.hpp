// Paths of a build relative to its project root and back. Paths here are
// already normal, so plain string prefixes do (a no-op build converts tens of
// thousands of them).
#pragma once

#include <string>

namespace af::engine {

struct ProjectPaths {
    std::string root; // absolute, normal, no trailing '/'

    std::string rel_of(const std::string& abs) const {
        if (abs.size() > root.size() && abs.compare(0, root.size(), root) == 0 && abs[root.size()] == '/')
            return abs.substr(root.size() + 1);
        return abs;
    }
    std::string abs_of(const std::string& rel) const {
        if (!rel.empty() && rel[0] == '/') return rel;
        std::string s = root;
        s.append(1, '/').append(rel);
        return s;
    }
};

} // namespace af::engine
