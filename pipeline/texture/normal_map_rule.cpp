#include "texture/normal_map_rule.hpp"

#include <cctype>
#include <cstdio>

namespace af::texture {
namespace {

// Words that say "normal map" wherever they stand in a name, as whole tokens:
// stone_furrowed_norm.png.cached.dds, normal0005.png, rockNormal.png,
// rwy-normalmap.dds, water_sine_nmap.dds, wall_nrm.tga.
constexpr std::string_view kAnywhere[] = {"norm", "normal", "normals", "normalmap", "normalmaps", "nrm", "nmap"};
// Short ones only as the suffix of a part (rock_n.png, perlin-noise-nm.dds,
// wall_n.png.cached.dds): as a middle token, "N" is a letter or a model name
// (m2000-N_lowpoly.png).
constexpr std::string_view kSuffix[] = {"n", "nm"};

// Tokens of maps whose texels look like centred vectors but are not normals:
// DuDv (distortion offset) maps, which renormalising would change. Found in
// FlightGear's tree (waves-ver10-dudv.dds, two channels centred on zero).
constexpr std::string_view kNotNormal[] = {"dudv"};

bool alnum(char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; }

// Splits one dot-part into tokens at separators, between letters and digits,
// and at lower→upper case changes (camelCase); lower-cased.
std::vector<std::string> tokens_of(std::string_view part) {
    std::vector<std::string> out;
    std::string cur;
    char prev = 0;
    for (char c : part) {
        const bool boundary =
            !cur.empty() && (!alnum(c) || std::isdigit((unsigned char)c) != std::isdigit((unsigned char)prev) ||
                             (std::islower((unsigned char)prev) && std::isupper((unsigned char)c)));
        if (boundary) out.push_back(std::move(cur)), cur.clear();
        if (alnum(c)) cur += char(std::tolower(static_cast<unsigned char>(c)));
        prev = c;
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
}

// Calls `f` with every dot-part of the file name (its last extension off),
// until `f` returns a non-empty token.
template <class F> std::string each_part(std::string_view file_name, F f) {
    const size_t slash = file_name.find_last_of("/\\");
    if (slash != std::string_view::npos) file_name.remove_prefix(slash + 1);
    const size_t last_dot = file_name.rfind('.');
    if (last_dot != std::string_view::npos && last_dot > 0) file_name = file_name.substr(0, last_dot);
    size_t start = 0;
    while (start <= file_name.size()) {
        const size_t dot = file_name.find('.', start);
        std::string tok =
            f(file_name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start));
        if (!tok.empty() || dot == std::string_view::npos) return tok;
        start = dot + 1;
    }
    return "";
}

std::string not_normal_map_token(std::string_view file_name) {
    return each_part(file_name, [](std::string_view part) -> std::string {
        for (const auto& t : tokens_of(part))
            for (std::string_view w : kNotNormal)
                if (t == w) return t;
        return "";
    });
}

} // namespace

std::string normal_map_name_token(std::string_view file_name) {
    const size_t slash = file_name.find_last_of("/\\");
    if (slash != std::string_view::npos) file_name.remove_prefix(slash + 1);
    const size_t last_dot = file_name.rfind('.');
    if (last_dot != std::string_view::npos && last_dot > 0) file_name = file_name.substr(0, last_dot); // the extension
    size_t start = 0;
    while (start <= file_name.size()) {
        size_t dot = file_name.find('.', start);
        std::string_view part =
            file_name.substr(start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
        std::vector<std::string> toks = tokens_of(part);
        for (const auto& t : toks)
            for (std::string_view w : kAnywhere)
                if (t == w) return t;
        // A suffix token must follow a separator: "rock_n", not "moon" or "pan".
        if (toks.size() >= 2 && part.size() > toks.back().size() && !alnum(part[part.size() - toks.back().size() - 1]))
            for (std::string_view w : kSuffix)
                if (toks.back() == w) return toks.back();
        if (dot == std::string_view::npos) break;
        start = dot + 1;
    }
    return "";
}

std::string describe_vectors(const Content& c) {
    const VectorStats& v = c.vectors;
    char buf[200];
    if (v.two_channel)
        std::snprintf(buf, sizeof buf, "two channels, %.0f%% inside the unit circle, mean XY (%.2f, %.2f)",
                      v.near_unit * 100.0, v.mean_x, v.mean_y);
    else
        std::snprintf(buf, sizeof buf,
                      "%.0f%% point out of the surface, %.0f%% within 0.1 of unit length, mean XYZ (%.2f, %.2f, %.2f)",
                      v.out_of_surface * 100.0, v.near_unit * 100.0, v.mean_x, v.mean_y, v.mean_z);
    return buf;
}

NormalMapVerdict recognise_normal_map(const Texture& t, const Content& c, std::string_view name, NormalMapMode mode,
                                      std::string_view why) {
    if (mode == NormalMapMode::Yes) return {true, why.empty() ? "marked by the job" : std::string(why)};
    if (mode == NormalMapMode::No) return {false, why.empty() ? "the job says it is not" : std::string(why)};
    if (t.desc.flags & AF_TEX_NORMAL_MAP) return {true, "the texture is marked a normal map"};
    if (c.above_one || c.negative) return {false, "HDR data"};
    if (std::string tok = normal_map_name_token(name); !tok.empty()) return {true, "file name token '" + tok + "'"};
    if (std::string tok = not_normal_map_token(name); !tok.empty())
        return {false, "file name token '" + tok + "' (a distortion map, not normals)"};
    if (c.unit_vectors) return {true, "texels: " + describe_vectors(c)};
    return {false, "no name token, texels: " + describe_vectors(c)};
}

NormalMapOverride normal_map_override(const std::vector<std::string>& patterns, std::string_view item_name,
                                      bool (*match)(std::string_view pattern, std::string_view path)) {
    NormalMapOverride o;
    for (const auto& p : patterns) {
        const bool negated = !p.empty() && p[0] == '!';
        std::string_view pat = negated ? std::string_view(p).substr(1) : std::string_view(p);
        if (pat.empty() || !match(pat, item_name)) continue;
        o.mode = negated ? NormalMapMode::No : NormalMapMode::Yes;
        o.why = "pattern '" + p + "' of normal_maps";
    }
    return o;
}

std::vector<std::string> split_patterns(std::string_view joined) {
    std::vector<std::string> out;
    std::string cur;
    int depth = 0;
    for (char c : joined) {
        if (c == '{') ++depth;
        if (c == '}' && depth > 0) --depth;
        if (c == ',' && depth == 0) {
            if (!cur.empty()) out.push_back(std::move(cur));
            cur.clear();
            continue;
        }
        cur += c;
    }
    if (!cur.empty()) out.push_back(std::move(cur));
    return out;
}

} // namespace af::texture
