#include "texture/texture_ops.hpp"

#include <algorithm>
#include <cstring>
#include <stdexcept>

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
        if (bool(x.layer) != bool(a.layer) || bool(x.face) != bool(a.face) || bool(x.slice) != bool(a.slice))
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

// Each picture is one surface of one size and format, as the first.
void check_alike(const std::vector<SetMember>& m, std::string_view set) {
    const Texture& a = *m.front().texture;
    for (const auto& x : m) {
        const TextureDesc& d = x.texture->desc;
        if (d.layers != 1 || d.faces != 1 || d.depth != 1)
            throw std::runtime_error(file_of(x.name) + ": a surface picture holds one surface; it holds " +
                                     std::to_string(d.layers) + " layer(s), " + std::to_string(d.faces) +
                                     " face(s), depth " + std::to_string(d.depth));
        if (d.width != a.desc.width || d.height != a.desc.height)
            throw std::runtime_error(std::string(set) + ": " + file_of(x.name) + " is " + std::to_string(d.width) +
                                     "x" + std::to_string(d.height) + ", " + file_of(m.front().name) + " " +
                                     std::to_string(a.desc.width) + "x" + std::to_string(a.desc.height) +
                                     "; every surface of a texture has one size");
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
    return out;
}

} // namespace

std::vector<SurfacePicture> split_surfaces(const Texture& t) {
    std::vector<SurfacePicture> out;
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

std::string surface_part(const TextureDesc& d, const SurfaceIndex& at, bool frames) {
    std::string out;
    if (d.layers > 1) out += (frames ? ".frame" : ".layer") + std::to_string(at.layer);
    if (d.faces > 1) out += ".face" + std::to_string(at.face);
    if (d.depth > 1) out += ".slice" + std::to_string(at.slice);
    return out;
}

Texture assemble(const std::vector<SetMember>& members, std::string_view set) {
    if (members.empty()) throw std::runtime_error(std::string(set) + ": no surface pictures");
    check_kinds(members, set);
    check_alike(members, set);
    const SetMember& first = members.front();
    TextureDesc d = first.texture->desc;
    d.mips = 1;
    d.layers = d.faces = d.depth = 1;
    for (const auto& m : members) {
        if (m.layer) d.layers = std::max(d.layers, *m.layer + 1);
        if (m.slice) d.depth = std::max(d.depth, *m.slice + 1);
    }
    if (first.face) d.faces = 6, d.flags |= AF_TEX_CUBE;
    if (d.depth > 1) d.flags |= AF_TEX_VOLUME;
    std::vector<const SetMember*> slot(size_t(d.layers) * d.faces * d.depth, nullptr);
    for (const auto& m : members) {
        const SurfaceIndex at{m.layer.value_or(0), m.face.value_or(0), m.slice.value_or(0)};
        const SetMember*& s = slot[(size_t(at.layer) * d.faces + at.face) * d.depth + at.slice];
        if (s)
            throw std::runtime_error(std::string(set) + ": " + file_of(s->name) + " and " + file_of(m.name) +
                                     " are both " + surface_words(m) + "; keep one of them");
        s = &m;
    }
    const auto [stem, ext] = stem_ext(file_of(set));
    std::string missing;
    size_t n_missing = 0;
    for (size_t i = 0; i < slot.size(); ++i) {
        if (slot[i]) continue;
        const SurfaceIndex at{uint32_t(i / (size_t(d.faces) * d.depth)), uint32_t(i / d.depth % d.faces),
                              uint32_t(i % d.depth)};
        if (++n_missing <= 8) missing += (missing.empty() ? "" : ", ") + stem + surface_part(d, at, first.frame) + ext;
    }
    if (n_missing)
        throw std::runtime_error(std::string(set) + ": " + std::to_string(members.size()) + " of " +
                                 std::to_string(slot.size()) + " surfaces given (" +
                                 (first.face ? "a cubemap has 6 faces" : "indices count from 0") + "), missing " +
                                 missing + (n_missing > 8 ? " and " + std::to_string(n_missing - 8) + " more" : "") +
                                 "; nothing is written");
    Texture out(d);
    out.meta = first.texture->meta;
    const size_t slice_bytes = first.texture->surface(0, 0, 0).size;
    for (size_t i = 0; i < slot.size(); ++i) {
        const uint32_t layer = uint32_t(i / (size_t(d.faces) * d.depth)), face = uint32_t(i / d.depth % d.faces),
                       s = uint32_t(i % d.depth);
        std::memcpy(out.surface(layer, face, 0).data + size_t(s) * slice_bytes, slot[i]->texture->surface(0, 0, 0).data,
                    slice_bytes);
    }
    return out;
}

} // namespace af::texture
