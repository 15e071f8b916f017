#include "texture/texture_ops.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <stdexcept>
#include <tuple>

namespace af::texture {
namespace {

// A texture of one depth slice of a piece of one layer and face.
Texture slice_of(const Texture& piece, uint32_t s) {
    TextureDesc d = piece.desc;
    d.depth = 1;
    d.flags &= ~AF_TEX_VOLUME;
    Texture out(d);
    out.meta = piece.meta;
    out.palette = piece.palette;
    ImageView dst = out.surface(0, 0, 0);
    std::memcpy(dst.data, piece.surface(0, 0, 0).data + size_t(s) * dst.size, dst.size);
    return out;
}

// "sky" and ".png" of "env/sky.png": the pictures' names are stem + surface part + extension.
std::pair<std::string, std::string> stem_ext(std::string_view set) {
    const size_t slash = set.rfind('/');
    const size_t dot = set.rfind('.');
    if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash))
        return {std::string(set), ""};
    return {std::string(set.substr(0, dot)), std::string(set.substr(dot))};
}

std::string file_of(std::string_view path) {
    const size_t slash = path.rfind('/');
    return std::string(slash == std::string_view::npos ? path : path.substr(slash + 1));
}

// Every member names the same kinds of index (a face, a layer or frame, a slice), and slices stand alone.
void check_kinds(const std::vector<SetMember>& m, std::string_view set) {
    for (const auto& x : m) {
        const SetMember& a = m.front();
        if (bool(x.layer) != bool(a.layer) || bool(x.face) != bool(a.face) || bool(x.slice) != bool(a.slice) ||
            bool(x.mip) != bool(a.mip))
            throw std::runtime_error(std::string(set) + ": " + file_of(a.name) + " and " + file_of(x.name) +
                                     " name different kinds of surface; every picture of one texture is named alike "
                                     "(docs/edit-formats.md)");
        if (x.slice && (x.layer || x.face))
            throw std::runtime_error(file_of(x.name) +
                                     ": a depth slice of a layer or face is not a surface "
                                     "AssetForge assembles (volume textures have one layer and face)");
        if (x.face && *x.face > 5) throw std::runtime_error(file_of(x.name) + ": a cubemap has faces 0 to 5");
    }
}

// Each picture is one surface, of one pixel format as the first (sizes: check_sizes, by level).
void check_alike(const std::vector<SetMember>& m, std::string_view set) {
    const Texture& a = *m.front().texture;
    for (const auto& x : m) {
        const TextureDesc& d = x.texture->desc;
        if (d.layers != 1 || d.faces != 1 || d.depth != 1)
            throw std::runtime_error(file_of(x.name) + ": a surface picture holds one surface; it holds " +
                                     std::to_string(d.layers) + " layer(s), " + std::to_string(d.faces) +
                                     " face(s), depth " + std::to_string(d.depth));
        // An editor that drops a PNG's colour chunk changes its tag, not its values: sRGB twins are alike.
        if (with_srgb(d.format, false) != with_srgb(a.desc.format, false))
            throw std::runtime_error(std::string(set) + ": " + file_of(x.name) + " holds " +
                                     std::string(format_info(d.format)->name) + ", " + file_of(m.front().name) + " " +
                                     std::string(format_info(a.desc.format)->name) +
                                     "; save every surface alike (8-bit PNGs, or EXRs)");
    }
}

// "layer 2, face 3": which surface a member names.
std::string surface_words(const SetMember& m) {
    std::string out;
    auto add = [&out](const char* word, std::optional<uint32_t> n) {
        if (n) out += (out.empty() ? "" : ", ") + std::string(word) + " " + std::to_string(*n);
    };
    add(m.frame ? "frame" : "layer", m.layer);
    add("face", m.face);
    add("slice", m.slice);
    add("level", m.mip);
    return out;
}

// layer, face, level, slice: where a picture goes.
using Key = std::array<uint32_t, 4>;
using Slots = std::map<Key, const SetMember*>;

Key key_of(const SetMember& m) {
    return {m.layer.value_or(0), m.face.value_or(0), m.mip.value_or(0), m.slice.value_or(0)};
}

// The texture the members' indices describe: as many layers and levels as the highest index names, six faces
// when faces are named, the depth of level 0's slices (of any level's when level 0 has none).
TextureDesc set_shape(const std::vector<SetMember>& members) {
    const SetMember& first = members.front();
    TextureDesc d = first.texture->desc;
    d.mips = d.layers = d.faces = d.depth = 1;
    uint32_t top_depth = 0;
    for (const auto& m : members) {
        if (m.layer) d.layers = std::max(d.layers, *m.layer + 1);
        if (m.mip) d.mips = std::max(d.mips, *m.mip + 1);
        if (m.slice) d.depth = std::max(d.depth, *m.slice + 1);
        if (m.slice && m.mip.value_or(0) == 0) top_depth = std::max(top_depth, *m.slice + 1);
    }
    if (top_depth) d.depth = top_depth;
    if (first.face) d.faces = 6, d.flags |= AF_TEX_CUBE;
    if (d.depth > 1) d.flags |= AF_TEX_VOLUME;
    return d;
}

// Each member in its slot: two of one surface, or a slice a level of the volume has not, are refused.
Slots place(const std::vector<SetMember>& members, const TextureDesc& d, std::string_view set) {
    Slots slot;
    for (const auto& m : members) {
        const Key k = key_of(m);
        if (const uint32_t depth = mip_extent(d.depth, k[2]); k[3] >= depth)
            throw std::runtime_error(std::string(set) + ": " + file_of(m.name) + " names slice " +
                                     std::to_string(k[3]) + " of level " + std::to_string(k[2]) + ", which has " +
                                     std::to_string(depth) + " (a volume's level N has max(1, depth >> N) slices)");
        const SetMember*& s = slot[k];
        if (s)
            throw std::runtime_error(std::string(set) + ": " + file_of(s->name) + " and " + file_of(m.name) +
                                     " are both " + surface_words(m) + "; keep one of them");
        s = &m;
    }
    return slot;
}

// Every surface of every level has its picture, or the missing ones are named.
void check_missing(const Slots& slot, const TextureDesc& d, const SetMember& first, std::string_view set) {
    const auto [stem, ext] = stem_ext(file_of(set));
    std::string missing;
    size_t n_missing = 0, expected = 0;
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < d.mips; ++m)
                for (uint32_t s = 0; s < mip_extent(d.depth, m); ++s) {
                    ++expected;
                    if (slot.count({l, f, m, s})) continue;
                    if (++n_missing <= 8)
                        missing += (missing.empty() ? "" : ", ") + stem +
                                   surface_part(d, {l, f, s, m}, first.frame, first.mip.has_value()) + ext;
                }
    if (n_missing)
        throw std::runtime_error(
            std::string(set) + ": " + std::to_string(slot.size()) + " of " + std::to_string(expected) +
            " surfaces given (" + (first.face ? "a cubemap has 6 faces" : "indices count from 0") +
            (first.mip ? ", and every level of every surface is a picture" : "") + "), missing " + missing +
            (n_missing > 8 ? " and " + std::to_string(n_missing - 8) + " more" : "") + "; nothing is written");
}

// The level-0 pictures are of one size; level N's are max(1, size >> N), and no level is past the last a
// texture of that size has. Returns the top level's size.
std::pair<uint32_t, uint32_t> check_sizes(const Slots& slot, const TextureDesc& d, std::string_view set) {
    const SetMember& top = *slot.begin()->second; // layer 0, face 0, level 0, slice 0
    const uint32_t w = top.texture->desc.width, h = top.texture->desc.height;
    auto size = [](uint32_t x, uint32_t y) { return std::to_string(x) + "x" + std::to_string(y); };
    for (const auto& [k, m] : slot) {
        const TextureDesc& x = m->texture->desc;
        const uint32_t lw = mip_extent(w, k[2]), lh = mip_extent(h, k[2]);
        if (x.width == lw && x.height == lh) continue;
        if (k[2] == 0)
            throw std::runtime_error(std::string(set) + ": " + file_of(m->name) + " is " + size(x.width, x.height) +
                                     ", " + file_of(top.name) + " " + size(w, h) +
                                     "; every surface of a texture has one size");
        throw std::runtime_error(std::string(set) + ": " + file_of(m->name) + " is " + size(x.width, x.height) +
                                 "; level " + std::to_string(k[2]) + " of a " + size(w, h) + " texture (" +
                                 file_of(top.name) + ") is " + size(lw, lh) + " (max(1, size >> level))");
    }
    if (const uint32_t full = full_mip_count(w, h, d.depth); d.mips > full) {
        const auto [stem, ext] = stem_ext(file_of(set));
        throw std::runtime_error(std::string(set) + ": " + stem + ".mip" + std::to_string(d.mips - 1) + ext + ": a " +
                                 size(w, h) + " texture has " + std::to_string(full) + " levels (mip0 to mip" +
                                 std::to_string(full - 1) + ")");
    }
    return {w, h};
}

} // namespace

std::vector<SurfacePicture> split_surfaces(const Texture& t, bool levels) {
    std::vector<SurfacePicture> out;
    if (levels && t.desc.mips > 1) {
        // Each level a picture of its own: a hand-made chain comes back as drawn (mips as authored).
        for (uint32_t l = 0; l < t.desc.layers; ++l)
            for (uint32_t f = 0; f < t.desc.faces; ++f)
                for (uint32_t m = 0; m < t.desc.mips; ++m) {
                    Texture level = single_surface(t, l, f, m);
                    if (t.desc.depth <= 1) {
                        out.push_back({std::move(level), {l, f, 0, m}});
                        continue;
                    }
                    for (uint32_t s = 0; s < level.desc.depth; ++s) out.push_back({slice_of(level, s), {l, f, s, m}});
                }
        return out;
    }
    const bool several = t.desc.layers > 1 || t.desc.faces > 1;
    std::vector<Piece> pieces;
    if (several) {
        pieces = extract(top_level(t), ExtractWhat::Surfaces);
    } else {
        pieces.push_back({top_level(t), {}});
    }
    for (size_t i = 0; i < pieces.size(); ++i) {
        const SurfaceIndex at{uint32_t(i / t.desc.faces), uint32_t(i % t.desc.faces), 0};
        if (t.desc.depth <= 1) {
            pieces[i].texture.desc.flags &= ~AF_TEX_CUBE;
            out.push_back({std::move(pieces[i].texture), at});
            continue;
        }
        for (uint32_t s = 0; s < t.desc.depth; ++s)
            out.push_back({slice_of(pieces[i].texture, s), {at.layer, at.face, s}});
    }
    return out;
}

std::string surface_part(const TextureDesc& d, const SurfaceIndex& at, bool frames, bool levels) {
    std::string out;
    if (d.layers > 1) out += (frames ? ".frame" : ".layer") + std::to_string(at.layer);
    if (d.faces > 1) out += ".face" + std::to_string(at.face);
    if (d.depth > 1) out += ".slice" + std::to_string(at.slice);
    if (levels) out += ".mip" + std::to_string(at.mip);
    return out;
}

Texture assemble(const std::vector<SetMember>& members, std::string_view set) {
    if (members.empty()) throw std::runtime_error(std::string(set) + ": no surface pictures");
    check_kinds(members, set);
    check_alike(members, set);
    const SetMember& first = members.front();
    TextureDesc d = set_shape(members);
    const Slots slot = place(members, d, set);
    check_missing(slot, d, first, set);
    std::tie(d.width, d.height) = check_sizes(slot, d, set);
    Texture out(d);
    out.meta = first.texture->meta;
    for (const auto& [k, m] : slot) {
        const ImageView level = out.surface(k[0], k[1], k[2]);
        const size_t slice_bytes = level.size / level.depth;
        std::memcpy(level.data + size_t(k[3]) * slice_bytes, m->texture->surface(0, 0, 0).data, slice_bytes);
    }
    return out;
}

} // namespace af::texture
