// The one rule that says whether a texture is a tangent-space normal map,
// and which part of it decided: every route (mips, encode's `auto` and
// `match`, convert) asks here, and reports the answer (docs/auto-format.md).
#pragma once

#include "assetforge/texture.hpp"
#include "texture/content.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace af::texture {

// What the job says: auto (flag, name, texels), or yes/no from the user
// (`normal_map: true`, `--normal-map`, a `normal_maps:` pattern).
enum class NormalMapMode { Auto, Yes, No };

struct NormalMapVerdict {
    bool yes = false;
    std::string rule; // what decided: "file name token 'norm'", "texels: …", "pattern '…' of normal_maps"
};

// The token of a file name that marks a normal map, or "" (see the .cpp and
// docs/auto-format.md for the tokens).
std::string normal_map_name_token(std::string_view file_name);

// The texel figures behind the texel rule, for messages ("97 % point out of
// the surface, 64 % within 0.1 of unit length").
std::string describe_vectors(const Content& c);

// `why`: the user's reason for a Yes or No (a pattern, a flag); "" gives a
// generic one. `name`: the input's file name (or item name).
NormalMapVerdict recognise_normal_map(const Texture& t, const Content& c, std::string_view name,
                                      NormalMapMode mode = NormalMapMode::Auto, std::string_view why = "");

// `normal_maps:` patterns of a pipeline, in order; "!pattern" says "not a
// normal map". The last pattern that matches `item_name` decides (as in
// .gitignore). Auto when none matches; `why` names the pattern.
struct NormalMapOverride {
    NormalMapMode mode = NormalMapMode::Auto;
    std::string why;
};
NormalMapOverride normal_map_override(const std::vector<std::string>& patterns, std::string_view item_name,
                                      bool (*match)(std::string_view pattern, std::string_view path));

// A `normal_maps` parameter as written in a step's parameters: patterns
// joined by commas, where commas inside {a,b} belong to the pattern.
std::vector<std::string> split_patterns(std::string_view joined);

} // namespace af::texture
