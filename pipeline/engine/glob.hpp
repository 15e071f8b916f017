// Input globs: "src/**/*.png", "textures/*.{dds,tga}" style patterns with
// '*' (within a path segment), '?', '[abc]', '**' (any number of segments)
// and '{a,b}' alternatives. Paths are '/'-separated and relative to a root.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace af::engine {

struct GlobMatch {
    std::string path;           // absolute, normal
    std::string name;           // relative to the pattern's fixed directory: the item name
};

// Fixed leading directories of a pattern ("src/tex" for "src/tex/**/*.png").
std::string glob_base(std::string_view pattern);

bool glob_match(std::string_view pattern, std::string_view path);

// Every regular file under `root` matching one of `patterns` and none of
// `excludes` (excludes match the path relative to root, or the item name),
// sorted by path, each once. Skips the state directory and AssetForge temporaries.
std::vector<GlobMatch> expand_globs(const std::filesystem::path& root, const std::vector<std::string>& patterns,
                                    const std::vector<std::string>& excludes);

} // namespace af::engine
