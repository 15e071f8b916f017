// The rule of commands that write one file the user names (`compare
// --heatmap`, `pages repack/compact --out`), as `convert` has it: an input
// is never the output — by its name, a link to it or a hard link (the same
// device and inode) — and any other file or link already at the name is
// replaced only when the user said so (-y / --overwrite). Header-only, for
// host commands and plugins alike.
#pragma once

#include "assetforge/error.hpp"

#include <filesystem>
#include <initializer_list>
#include <sys/stat.h>

namespace af::sdk {

// True when both names lead to one file (links followed).
inline bool same_file(const std::filesystem::path& a, const std::filesystem::path& b) {
    struct stat x {
    }, y{};
    return ::stat(a.c_str(), &x) == 0 && ::stat(b.c_str(), &y) == 0 && x.st_dev == y.st_dev && x.st_ino == y.st_ino;
}

// Throws a usage error (exit 2) when `out` may not be written.
inline void check_output_name(const std::filesystem::path& out, std::initializer_list<std::filesystem::path> inputs,
                              bool overwrite) {
    for (const auto& in : inputs)
        if (same_file(out, in))
            usage(out.string() + " is the input " + in.string() +
                  " (or a link to it); an input is never replaced: write to another file");
    struct stat st {};
    if (!overwrite && ::lstat(out.c_str(), &st) == 0)
        usage(out.string() + " exists; pass -y (--overwrite) to replace it");
}

} // namespace af::sdk
