#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"

#include <algorithm>

namespace af::texture {
namespace {

std::string count_text(uint32_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What the original holds that `t` lacks, in the words of its container
// ("2 layers (array layers or animation frames)"), or "" when nothing.
std::string missing_surfaces(const TextureDesc& t, const TextureDesc& original) {
    std::string out;
    auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    if (t.layers < original.layers)
        add(count_text(original.layers, "layer", "layers") +
            " (array layers or animation frames) where the input has " + std::to_string(t.layers));
    if (t.faces < original.faces)
        add(count_text(original.faces, "face", "faces") + (original.faces == 6 ? " (a cubemap)" : "") +
            " where the input has " + std::to_string(t.faces));
    if (t.depth < original.depth)
        add(count_text(original.depth, "depth slice", "depth slices") + " where the input has " +
            std::to_string(t.depth));
    return out;
}

// An XTF or VTF original's layers are animation frames, and its pictures are named so.
bool frames_of(const std::string& path) {
    std::string ext = path.substr(std::min(path.size(), path.rfind('.') + 1));
    for (auto& c : ext) c = char(tolower(static_cast<unsigned char>(c)));
    return ext == "xtf" || ext == "vtf";
}

// The pictures of levels [from, to) of every surface of `d` that `have` lacks (every one when `have` is null),
// named as the export names them ("sky.face5.png"; with `levels`, every level: "sky.face5.mip0.png"), at most 8.
std::string picture_names(const TextureDesc& d, const TextureDesc* have, std::string_view name, bool frames,
                          bool levels, uint32_t from, uint32_t to) {
    const size_t slash = name.rfind('/');
    const std::string file(slash == std::string_view::npos ? name : name.substr(slash + 1));
    const size_t dot = file.rfind('.');
    const std::string stem = dot == std::string::npos ? file : file.substr(0, dot);
    const std::string ext = dot == std::string::npos ? "" : file.substr(dot);
    std::string out;
    size_t n = 0;
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = from; m < to; ++m)
                for (uint32_t s = 0; s < mip_extent(d.depth, m); ++s) {
                    if (have && l < have->layers && f < have->faces && s < have->depth) continue;
                    if (++n <= 8)
                        out += (out.empty() ? "" : ", ") + stem + surface_part(d, {l, f, s, m}, frames, levels) + ext;
                }
    if (n > 8) out += " and " + std::to_string(n - 8) + " more";
    return out;
}

// The surfaces' pictures (the top level's, or with `levels` every level's) of the original that `have` lacks.
std::string picture_names(const TextureDesc& original, const TextureDesc* have, std::string_view name, bool frames,
                          bool levels = false) {
    return picture_names(original, have, name, frames, levels, 0, levels ? original.mips : 1);
}

// The pictures of levels [from, to) of every surface of `d`, named as `decode` with `mips: all` names them.
std::string level_names(const TextureDesc& d, uint32_t from, uint32_t to, std::string_view name, bool frames) {
    return picture_names(d, nullptr, name, frames, true, from, to);
}

} // namespace

void check_match_levels(const Texture& t, const MatchTarget& like, std::string_view name) {
    // Drawn levels are kept as drawn: making the missing ones from the top, or dropping extra ones, would give
    // a chain nobody drew, so a count other than the original's is refused.
    const uint32_t have = t.desc.mips, want = like.mips;
    if (have == want) return;
    const bool frames = frames_of(like.path);
    const std::string head = std::string(name) + ": format: match with " + like.path + ": the original has " +
                             count_text(want, "mip level", "mip levels") + ", the pictures " + std::to_string(have);
    TextureDesc d = t.desc;
    d.mips = std::max(have, want);
    if (have < want)
        sdk::unsupported(head + "; missing " + level_names(d, have, want, name, frames) +
                         " (every level of every surface is a picture when levels are edited: docs/edit-formats.md), "
                         "so nothing is written");
    sdk::unsupported(head + "; " + level_names(d, want, have, name, frames) +
                     " past the original's last level: remove them, or encode with a format of your own, so "
                     "nothing is written");
}

void check_match_surfaces(const Texture& t, const MatchTarget& like, std::string_view name, bool from_set,
                          bool levels) {
    // One edited picture cannot say which frame, face or layer it replaces:
    // writing it alone would give a file with fewer surfaces than the game's.
    const std::string missing = missing_surfaces(t.desc, like.texture.desc);
    if (missing.empty()) return;
    const bool frames = frames_of(like.path);
    const std::string head =
        std::string(name) + ": format: match with " + like.path + ": the original holds " + missing;
    if (from_set)
        sdk::unsupported(head + "; missing " + picture_names(like.texture.desc, &t.desc, name, frames, levels) +
                         ", so nothing is written (one picture per surface: docs/edit-formats.md)");
    sdk::unsupported(head +
                     "; writing the input alone would drop the rest, so nothing is written (one picture cannot "
                     "say which surface it replaces: give one per surface, named " +
                     picture_names(like.texture.desc, nullptr, name, frames) +
                     " as the shipped export names them (docs/edit-formats.md), or an original of one surface)");
}

} // namespace af::texture
