#include "resave_meta.hpp"

#include "vtf_formats.hpp"

#include "assetforge/plugin.hpp"

#include <xxhash.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace af::xtf {

using sdk::format;

const char* const kResaveMetaKeys[] = {"xtf_format",        "xtf_flags",        "xtf_mips",   "xtf_mipskip",
                                       "xtf_bumpscale",     "xtf_reflectivity", "xtf_lowres", "xtf_fallback",
                                       "xtf_fallback_data", "xtf_palettes",     "xtf_pixels", nullptr};

const char* const kVtfMetaKeys[] = {"vtf_format", nullptr};

namespace {

std::string hex(const uint8_t* p, size_t n) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s(n * 2, '0');
    for (size_t i = 0; i < n; ++i) {
        s[2 * i] = kDigits[p[i] >> 4];
        s[2 * i + 1] = kDigits[p[i] & 15];
    }
    return s;
}

[[noreturn]] void malformed(const std::string& key, const std::string& value, const char* expected) {
    const std::string shown = value.size() > 40 ? value.substr(0, 40) + "…" : value;
    sdk::usage(format("texture metadata %s: expected %s, got '%s' (it is written by the xtf reader; remove the key "
                      "to write from the pixels alone)",
                      key.c_str(), expected, shown.c_str()));
}

std::vector<uint8_t> unhex(const std::string& key, const std::string& s) {
    auto digit = [](char c) { return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1; };
    if (s.size() % 2) malformed(key, s, "hex bytes");
    std::vector<uint8_t> out(s.size() / 2);
    for (size_t i = 0; i < out.size(); ++i) {
        const int hi = digit(s[2 * i]), lo = digit(s[2 * i + 1]);
        if (hi < 0 || lo < 0) malformed(key, s, "hex bytes");
        out[i] = uint8_t(hi << 4 | lo);
    }
    return out;
}

// Decimal for finite values (nine digits give the float back exactly); the
// bit pattern otherwise, so even a NaN header field survives a re-save.
std::string float_text(float v) {
    if (std::isfinite(v)) return format("%.9g", double(v));
    uint32_t bits;
    std::memcpy(&bits, &v, 4);
    return format("0x%08x", bits);
}

bool parse_float(const std::string& s, float& v) {
    char* end = nullptr;
    if (s.rfind("0x", 0) == 0) {
        const unsigned long bits = std::strtoul(s.c_str() + 2, &end, 16);
        if (s.size() != 10 || *end) return false;
        const uint32_t b = uint32_t(bits);
        std::memcpy(&v, &b, 4);
        return true;
    }
    v = std::strtof(s.c_str(), &end);
    return !s.empty() && !*end;
}

uint32_t parse_uint(const std::string& key, const std::string& s, uint32_t max) {
    char* end = nullptr;
    const unsigned long long v = std::strtoull(s.c_str(), &end, 0);
    if (s.empty() || *end || s[0] == '-' || v > max) malformed(key, s, format("an integer 0..%u", max).c_str());
    return uint32_t(v);
}

// "WxH" (each 0..255), with an optional ":hexbytes" tail.
void parse_size(const std::string& key, const std::string& s, uint32_t& w, uint32_t& h, std::string* tail) {
    unsigned a = 0, b = 0;
    int used = 0;
    if (std::sscanf(s.c_str(), "%3ux%3u%n", &a, &b, &used) != 2 || a > 255 || b > 255 ||
        (s[size_t(used)] != 0 && !(tail && s[size_t(used)] == ':')))
        malformed(key, s, tail ? "WxH or WxH:hexbytes (0..255 each)" : "WxH (0..255 each)");
    w = a;
    h = b;
    if (tail) *tail = s[size_t(used)] == ':' ? s.substr(size_t(used) + 1) : "";
}

const std::string* find(const std::map<std::string, std::string>& m, const char* key) {
    auto it = m.find(key);
    return it == m.end() ? nullptr : &it->second;
}

} // namespace

std::map<std::string, std::string> vtf_source_meta(int32_t vtf_format) {
    return {{"vtf_format", std::string(vtf_format_name(vtf_format))}};
}

std::optional<int32_t> vtf_source_format(const std::map<std::string, std::string>& meta) {
    const std::string* v = find(meta, "vtf_format");
    if (!v) return std::nullopt;
    auto id = vtf_format_by_name(*v);
    if (!id) malformed("vtf_format", *v, "a VTF format name");
    return *id;
}

// XXH3-128 as 32 hex digits, high half first: the digest the reader has always
// recorded, so textures read by an earlier build still re-save byte for byte.
std::string mip0_digest(const Texture& t) {
    struct StateFree {
        void operator()(XXH3_state_t* s) const { XXH3_freeState(s); }
    };
    std::unique_ptr<XXH3_state_t, StateFree> h(XXH3_createState());
    if (!h) throw std::bad_alloc();
    XXH3_128bits_reset(h.get());
    const TextureDesc& d = t.desc;
    const uint32_t shape[] = {d.format, d.width, d.height, d.depth, d.layers, d.faces};
    XXH3_128bits_update(h.get(), shape, sizeof shape);
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f) {
            const ImageView s = t.surface(l, f, 0);
            XXH3_128bits_update(h.get(), s.data, s.size);
        }
    if (d.format == FMT_P8) XXH3_128bits_update(h.get(), t.palette.data(), t.palette.size());
    const XXH128_hash_t v = XXH3_128bits_digest(h.get());
    uint8_t be[16];
    for (int i = 0; i < 8; ++i) {
        be[i] = uint8_t(v.high64 >> (56 - 8 * i));
        be[8 + i] = uint8_t(v.low64 >> (56 - 8 * i));
    }
    return hex(be, sizeof be);
}

std::map<std::string, std::string> resave_meta(const XtfFile& file, const Texture& out) {
    const XtfHeader& h = file.header;
    std::map<std::string, std::string> m;
    m["xtf_format"] = std::string(vtf_format_name(h.image_format));
    m["xtf_flags"] = format("0x%08x", h.flags);
    m["xtf_mips"] = std::to_string(file.layout.mips);
    m["xtf_mipskip"] = std::to_string(h.mip_skip);
    m["xtf_bumpscale"] = float_text(h.bumpmap_scale);
    m["xtf_reflectivity"] =
        float_text(h.reflectivity[0]) + "," + float_text(h.reflectivity[1]) + "," + float_text(h.reflectivity[2]);
    m["xtf_lowres"] = format("%ux%u", h.lowres_width, h.lowres_height);
    if (!file.lowres.empty()) m["xtf_lowres"] += ":" + hex(file.lowres.data(), file.lowres.size());
    if (file.fallback.desc.width) {
        m["xtf_fallback"] = format("%ux%u", h.fallback_width, h.fallback_height);
        m["xtf_fallback_data"] = hex(file.fallback.data.data(), file.fallback.data.size());
    } else {
        m["xtf_fallback"] = "0x0";
    }
    if (!file.palettes.empty()) m["xtf_palettes"] = hex(file.palettes.data(), file.palettes.size());
    m["xtf_pixels"] = mip0_digest(out);
    return m;
}

std::optional<XtfSource> parse_resave_meta(const std::map<std::string, std::string>& meta) {
    const std::string* fmt = find(meta, "xtf_format");
    if (!fmt) return std::nullopt;
    XtfSource s;
    auto id = vtf_format_by_name(*fmt);
    if (!id) malformed("xtf_format", *fmt, "a VTF format name");
    s.format = *id;
    auto need = [&](const char* key) -> const std::string& {
        const std::string* v = find(meta, key);
        if (!v)
            sdk::usage(format("texture metadata has xtf_format but no %s (all xtf_* keys come from the xtf "
                              "reader together)",
                              key));
        return *v;
    };
    s.flags = parse_uint("xtf_flags", need("xtf_flags"), 0xFFFFFFFFu);
    s.mips = parse_uint("xtf_mips", need("xtf_mips"), 64);
    s.mip_skip = uint8_t(parse_uint("xtf_mipskip", need("xtf_mipskip"), 255));
    if (!parse_float(need("xtf_bumpscale"), s.bumpmap_scale))
        malformed("xtf_bumpscale", need("xtf_bumpscale"), "a number");
    {
        const std::string& r = need("xtf_reflectivity");
        size_t a = r.find(','), b = a == std::string::npos ? a : r.find(',', a + 1);
        if (b == std::string::npos || !parse_float(r.substr(0, a), s.reflectivity[0]) ||
            !parse_float(r.substr(a + 1, b - a - 1), s.reflectivity[1]) ||
            !parse_float(r.substr(b + 1), s.reflectivity[2]))
            malformed("xtf_reflectivity", r, "three numbers r,g,b");
    }
    std::string tail;
    parse_size("xtf_lowres", need("xtf_lowres"), s.lowres_width, s.lowres_height, &tail);
    s.lowres = unhex("xtf_lowres", tail);
    if (s.lowres.size() != size_t(s.lowres_width) * s.lowres_height * 3)
        malformed("xtf_lowres", need("xtf_lowres"), "WxH:hexbytes with W·H·3 bytes");
    parse_size("xtf_fallback", need("xtf_fallback"), s.fallback_width, s.fallback_height, nullptr);
    if (s.fallback_width && s.fallback_height) {
        s.fallback_mips = s.mips == 1 ? 1 : full_mip_count(s.fallback_width, s.fallback_height);
        s.fallback = unhex("xtf_fallback_data", need("xtf_fallback_data"));
    }
    if (const std::string* p = find(meta, "xtf_palettes")) s.palettes = unhex("xtf_palettes", *p);
    if (s.palettes.size() % kPaletteBytes) malformed("xtf_palettes", *find(meta, "xtf_palettes"), "1024 bytes a frame");
    s.pixels = need("xtf_pixels");
    return s;
}

} // namespace af::xtf
