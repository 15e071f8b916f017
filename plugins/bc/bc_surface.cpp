// Surface loops for the BC codec. Kernels live in bc_decode.cpp and the
// *_encode.cpp files; BC6H/BC7 come from bptc.hpp when built in.
#include "bc_surface.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/half.hpp"
#include "assetforge/plugin.hpp"

#include "bptc.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <smmintrin.h>

namespace af::bc {
namespace {

using sdk::format;

void check_cancel(const af_host* host) {
    if (host && host->cancelled && host->cancelled()) sdk::fail(AF_ERR_CANCELLED, AF_NO_OFFSET, "cancelled");
}

// One 4×4 block decoded to float RGBA (used for float/half outputs and BC6H).
void decode_block_float(const BcFormat& f, const uint8_t* blk, float out[64]) {
    switch (f.family) {
    case Family::BC4:
    case Family::BC5: {
        float r[16], g[16] = {};
        decode_bc4_float(blk, f.is_signed, r);
        if (f.family == Family::BC5) decode_bc4_float(blk + 8, f.is_signed, g);
        for (int i = 0; i < 16; ++i) out[4 * i] = r[i], out[4 * i + 1] = g[i], out[4 * i + 2] = 0, out[4 * i + 3] = 1;
        return;
    }
    case Family::BC6H: {
        decode_bc6h_block_float(blk, out, f.is_signed);
        return;
    }
    default:
        break;
    }
    uint8_t px[64];
    switch (f.family) {
    case Family::BC1:
        decode_bc1(blk, px, 16);
        break;
    case Family::BC2:
        decode_bc2(blk, px, 16);
        break;
    case Family::BC3:
        decode_bc3(blk, px, 16);
        break;
    case Family::BC7:
        decode_bc7_block(blk, px);
        break;
    default:
        break;
    }
    for (int i = 0; i < 64; ++i) out[i] = float(px[i]) * (1.0f / 255.0f);
}

// One block decoded to RGBA8 into a destination with the given pitch.
void decode_block_bytes(const BcFormat& f, const uint8_t* blk, uint8_t* dst, size_t pitch) {
    switch (f.family) {
    case Family::BC1:
        decode_bc1(blk, dst, pitch);
        return;
    case Family::BC2:
        decode_bc2(blk, dst, pitch);
        return;
    case Family::BC3:
        decode_bc3(blk, dst, pitch);
        return;
    case Family::BC4:
    case Family::BC5: {
        // Whole texels as words: (R, G, 0, 255), interleaved with SSE.
        alignas(16) uint8_t r[16], g[16] = {};
        decode_bc4_bytes(blk, f.is_signed, r);
        if (f.family == Family::BC5) decode_bc4_bytes(blk + 8, f.is_signed, g);
        const __m128i rv = _mm_load_si128(reinterpret_cast<const __m128i*>(r));
        const __m128i gv = _mm_load_si128(reinterpret_cast<const __m128i*>(g));
        const __m128i lo = _mm_unpacklo_epi8(rv, gv), hi = _mm_unpackhi_epi8(rv, gv); // RG pairs
        const __m128i alpha = _mm_set1_epi32(int(0xff000000u));
        const __m128i rows[4] = {_mm_or_si128(_mm_cvtepu16_epi32(lo), alpha),
                                 _mm_or_si128(_mm_cvtepu16_epi32(_mm_srli_si128(lo, 8)), alpha),
                                 _mm_or_si128(_mm_cvtepu16_epi32(hi), alpha),
                                 _mm_or_si128(_mm_cvtepu16_epi32(_mm_srli_si128(hi, 8)), alpha)};
        for (int y = 0; y < 4; ++y) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + y * pitch), rows[y]);
        return;
    }
    case Family::BC7: {
        uint8_t px[64];
        decode_bc7_block(blk, px);
        for (int y = 0; y < 4; ++y) std::memcpy(dst + y * pitch, px + 16 * y, 16);
        return;
    }
    case Family::BC6H: {
        decode_bc6h_block_rgba8(blk, dst, pitch, f.is_signed);
        return;
    }
    }
}

enum class Pixels { RGBA8, RGBA16F, RGBA32F };

Pixels output_kind(uint32_t fmt) {
    switch (fmt) {
    case FMT_R8G8B8A8_UNORM:
    case FMT_R8G8B8A8_UNORM_SRGB:
        return Pixels::RGBA8;
    case FMT_R16G16B16A16_FLOAT:
        return Pixels::RGBA16F;
    case FMT_R32G32B32A32_FLOAT:
        return Pixels::RGBA32F;
    default:
        sdk::usage(format("bc: uncompressed side must be R8G8B8A8_UNORM(_SRGB), R16G16B16A16_FLOAT or "
                          "R32G32B32A32_FLOAT, got format %u",
                          fmt));
    }
}

uint32_t pixel_bytes(Pixels p) { return p == Pixels::RGBA8 ? 4 : p == Pixels::RGBA16F ? 8 : 16; }

void check_sizes(const af_surface& comp, const af_surface& plain, Pixels kind) {
    if (comp.width != plain.width || comp.height != plain.height ||
        std::max(comp.depth, 1u) != std::max(plain.depth, 1u))
        sdk::usage(format("bc: surfaces differ in size (%ux%ux%u vs %ux%ux%u)", comp.width, comp.height, comp.depth,
                          plain.width, plain.height, plain.depth));
    if (comp.width == 0 || comp.height == 0) sdk::usage("bc: empty surface");
    uint32_t d = std::max(comp.depth, 1u);
    uint64_t need = surface_bytes(comp.format, comp.width, comp.height, d);
    if (comp.size != need)
        sdk::invalid(comp.size < need ? comp.size : need,
                     format("bc: compressed surface holds %llu bytes, %ux%ux%u needs %llu",
                            (unsigned long long)comp.size, comp.width, comp.height, d, (unsigned long long)need));
    uint64_t pneed = uint64_t(plain.width) * plain.height * d * pixel_bytes(kind);
    if (plain.size != pneed)
        sdk::usage(format("bc: uncompressed surface holds %llu bytes, needs %llu", (unsigned long long)plain.size,
                          (unsigned long long)pneed));
}

// Linear light → sRGB encoding, for float input to _SRGB formats.
float linear_to_srgb(float v) {
    v = std::clamp(v, 0.0f, 1.0f);
    return v <= 0.0031308f ? v * 12.92f : 1.055f * std::pow(v, 1 / 2.4f) - 0.055f;
}

inline uint8_t to_byte(float v) { return uint8_t(std::lround(std::clamp(v, 0.0f, 1.0f) * 255.0f)); }

// Signed data in the byte domain of the BC4 kernels: value + 128, 1..255.
inline uint8_t to_signed_byte(float v) { return uint8_t(std::lround(std::clamp(v, -1.0f, 1.0f) * 127.0f) + 128); }

// R and G bytes of 16 RGBA8 texels.
inline void split_rg(const uint8_t* px, bool, uint8_t r[16], uint8_t g[16]) {
    const __m128i rsel = _mm_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    const __m128i gsel = _mm_setr_epi8(1, 5, 9, 13, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
    for (int q = 0; q < 4; ++q) {
        __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(px + 16 * q));
        uint32_t rv = uint32_t(_mm_cvtsi128_si32(_mm_shuffle_epi8(x, rsel)));
        uint32_t gv = uint32_t(_mm_cvtsi128_si32(_mm_shuffle_epi8(x, gsel)));
        std::memcpy(r + 4 * q, &rv, 4);
        std::memcpy(g + 4 * q, &gv, 4);
    }
}

} // namespace

std::optional<BcFormat> classify(uint32_t id) {
    switch (id) {
    case FMT_BC1_TYPELESS:
    case FMT_BC1_UNORM:
        return BcFormat{Family::BC1, false, false, 8};
    case FMT_BC1_UNORM_SRGB:
        return BcFormat{Family::BC1, false, true, 8};
    case FMT_BC2_TYPELESS:
    case FMT_BC2_UNORM:
        return BcFormat{Family::BC2, false, false, 16};
    case FMT_BC2_UNORM_SRGB:
        return BcFormat{Family::BC2, false, true, 16};
    case FMT_BC3_TYPELESS:
    case FMT_BC3_UNORM:
        return BcFormat{Family::BC3, false, false, 16};
    case FMT_BC3_UNORM_SRGB:
        return BcFormat{Family::BC3, false, true, 16};
    case FMT_BC4_TYPELESS:
    case FMT_BC4_UNORM:
        return BcFormat{Family::BC4, false, false, 8};
    case FMT_BC4_SNORM:
        return BcFormat{Family::BC4, true, false, 8};
    case FMT_BC5_TYPELESS:
    case FMT_BC5_UNORM:
        return BcFormat{Family::BC5, false, false, 16};
    case FMT_BC5_SNORM:
        return BcFormat{Family::BC5, true, false, 16};
    case FMT_BC6H_TYPELESS:
    case FMT_BC6H_UF16:
        return BcFormat{Family::BC6H, false, false, 16};
    case FMT_BC6H_SF16:
        return BcFormat{Family::BC6H, true, false, 16};
    case FMT_BC7_TYPELESS:
    case FMT_BC7_UNORM:
        return BcFormat{Family::BC7, false, false, 16};
    case FMT_BC7_UNORM_SRGB:
        return BcFormat{Family::BC7, false, true, 16};
    default:
        return std::nullopt;
    }
}

SurfaceOptions parse_options(const af_options* options) {
    sdk::Options o(options);
    SurfaceOptions s;
    std::string q = o.choice("quality", "normal", {"fast", "normal", "high", "max"});
    int level = q == "fast" ? 0 : q == "normal" ? 3 : q == "high" ? 6 : 10;
    s.block.level = int(o.integer("level", level, 0, 10));
    s.block.perceptual = o.choice("weights", "uniform", {"perceptual", "uniform"}) == "perceptual";
    s.block.srgb = o.flag("srgb", false);
    s.block.bc1_3color = o.flag("bc1_3color", true);
    s.block.bc1_punchthrough = o.flag("bc1_punchthrough", true);
    s.block.alpha_threshold = uint8_t(o.integer("alpha_threshold", 128, 0, 255));
    s.normal_map = o.flag("normal_map", false);
    return s;
}

void decode_surface(const af_host* host, const af_surface& src, af_surface& dst) {
    auto f = classify(src.format);
    if (!f) sdk::unsupported(format("bc: format %u is not a BC format", src.format));
    const Pixels kind = output_kind(dst.format);
    check_sizes(src, dst, kind);
    const uint32_t w = src.width, h = src.height, d = std::max(src.depth, 1u);
    const uint32_t bw = (w + 3) / 4, bh = (h + 3) / 4;
    const uint64_t rows = uint64_t(bh) * d; // block rows across all slices
    const size_t pitch = size_t(w) * pixel_bytes(kind);
    const BcFormat fmt = *f;
    const uint8_t* in = src.data;
    uint8_t* out = dst.data;

    sdk::parallel_for(host, rows, 4, [&](uint64_t begin, uint64_t end) {
        check_cancel(host);
        for (uint64_t row = begin; row < end; ++row) {
            const uint64_t slice = row / bh;
            const uint32_t by = uint32_t(row % bh);
            const uint8_t* blk = in + row * bw * fmt.block_bytes;
            uint8_t* slice_out = out + slice * pitch * h;
            const uint32_t ny = std::min(4u, h - by * 4);
            for (uint32_t bx = 0; bx < bw; ++bx, blk += fmt.block_bytes) {
                const uint32_t nx = std::min(4u, w - bx * 4);
                uint8_t* dst0 = slice_out + size_t(by) * 4 * pitch + size_t(bx) * 4 * pixel_bytes(kind);
                if (kind == Pixels::RGBA8) {
                    if (nx == 4 && ny == 4) {
                        decode_block_bytes(fmt, blk, dst0, pitch);
                    } else {
                        uint8_t tmp[64];
                        decode_block_bytes(fmt, blk, tmp, 16);
                        for (uint32_t y = 0; y < ny; ++y) std::memcpy(dst0 + y * pitch, tmp + 16 * y, nx * 4);
                    }
                    continue;
                }
                float px[64];
                decode_block_float(fmt, blk, px);
                for (uint32_t y = 0; y < ny; ++y) {
                    uint8_t* row_out = dst0 + y * pitch;
                    if (kind == Pixels::RGBA32F) {
                        std::memcpy(row_out, px + 16 * y, nx * 16);
                    } else {
                        uint16_t hv[16];
                        for (uint32_t i = 0; i < nx * 4; ++i) hv[i] = float_to_half(px[16 * y + i]);
                        std::memcpy(row_out, hv, nx * 8);
                    }
                }
            }
        }
    });
}

namespace {

// What the encode loop knows about the surface, shared by every block.
struct EncodeGeometry {
    BcFormat fmt;
    Pixels kind;
    uint32_t w, h;
    size_t pitch;
    bool float_in;   // the input is RGBA32F
    bool need_float; // a kernel reads floats: float input, or BC5 normal maps
};

// One block's texels: bytes, and floats where a kernel needs them (`fpx` is
// left unset otherwise, to keep the per-block cost of the byte paths low).
struct BlockTexels {
    alignas(16) uint8_t px[64];
    float fpx[64];
};

// Gathers the 4×4 texels, clamping coordinates at the right and bottom edges.
inline void gather_block(const EncodeGeometry& g, const uint8_t* slice_in, uint32_t bx, uint32_t by, BlockTexels& t) {
    if (!g.float_in && bx * 4 + 4 <= g.w && by * 4 + 4 <= g.h) {
        for (int y = 0; y < 4; ++y) std::memcpy(t.px + 16 * y, slice_in + (by * 4 + y) * g.pitch + size_t(bx) * 16, 16);
    } else {
        for (int y = 0; y < 4; ++y) {
            uint32_t sy = std::min(by * 4 + y, g.h - 1);
            for (int x = 0; x < 4; ++x) {
                uint32_t sx = std::min(bx * 4 + x, g.w - 1);
                const uint8_t* p = slice_in + sy * g.pitch + size_t(sx) * pixel_bytes(g.kind);
                int i = 4 * (4 * y + x);
                if (g.float_in)
                    std::memcpy(t.fpx + i, p, 16);
                else
                    std::memcpy(t.px + i, p, 4);
            }
        }
    }
    if (g.need_float && !g.float_in)
        for (int i = 0; i < 64; ++i) t.fpx[i] = t.px[i] * (1.0f / 255.0f);
}

// BC1/2/3/7 read RGBA8; float input is converted (sRGB-encoded for sRGB formats).
inline void encode_rgba8_block(const EncodeGeometry& g, BlockTexels& t, uint8_t* blk, const SurfaceOptions& opt) {
    const BcFormat& fmt = g.fmt;
    if (g.float_in)
        for (int i = 0; i < 64; ++i)
            t.px[i] = to_byte((fmt.srgb && (i & 3) != 3) ? linear_to_srgb(t.fpx[i]) : t.fpx[i]);
    if (fmt.family == Family::BC1)
        encode_bc1(t.px, blk, opt.block);
    else if (fmt.family == Family::BC2)
        encode_bc2(t.px, blk, opt.block);
    else if (fmt.family == Family::BC3)
        encode_bc3(t.px, blk, opt.block);
    else {
        Bc7Options o;
        o.level = opt.block.level;
        o.perceptual = opt.block.perceptual;
        o.opaque = true;
        for (int i = 0; i < 16; ++i) o.opaque = o.opaque && t.px[4 * i + 3] == 255;
        encode_bc7_block(t.px, blk, o);
    }
}

// BC4/5 read one or two channels; the float path handles signed formats and
// renormalises BC5 normal maps.
inline void encode_rg_block(const EncodeGeometry& g, const BlockTexels& t, uint8_t* blk, const SurfaceOptions& opt) {
    const BcFormat& fmt = g.fmt;
    const float* fpx = t.fpx;
    const uint8_t* px = t.px;
    uint8_t r[16], gc[16];
    if (!g.need_float) {
        split_rg(px, fmt.is_signed, r, gc); // the kernels clamp signed bytes to 1..255
    } else
        for (int i = 0; i < 16; ++i) {
            // Vector components in [-1, 1] for normal maps and signed formats.
            float x, y, z;
            if (fmt.is_signed) {
                x = g.float_in ? fpx[4 * i] : (int(px[4 * i]) - 128) / 127.0f;
                y = g.float_in ? fpx[4 * i + 1] : (int(px[4 * i + 1]) - 128) / 127.0f;
                z = g.float_in ? fpx[4 * i + 2] : (int(px[4 * i + 2]) - 128) / 127.0f;
            } else {
                x = fpx[4 * i] * 2 - 1, y = fpx[4 * i + 1] * 2 - 1, z = fpx[4 * i + 2] * 2 - 1;
            }
            if (opt.normal_map && fmt.family == Family::BC5) {
                float l = std::sqrt(x * x + y * y + z * z);
                if (l > 1e-6f) x /= l, y /= l;
            }
            if (fmt.is_signed)
                r[i] = to_signed_byte(x), gc[i] = to_signed_byte(y);
            else
                r[i] = to_byte((x + 1) * 0.5f), gc[i] = to_byte((y + 1) * 0.5f);
        }
    if (fmt.family == Family::BC4)
        encode_bc4(r, fmt.is_signed, blk, opt.block.level);
    else
        encode_bc5(r, gc, fmt.is_signed, blk, opt.block.level);
}

// BC6H reads float RGB; alpha is dropped.
inline void encode_hdr_block(const EncodeGeometry& g, const BlockTexels& t, uint8_t* blk, const SurfaceOptions& opt) {
    float rgb[48];
    for (int i = 0; i < 16; ++i)
        for (int c = 0; c < 3; ++c) rgb[3 * i + c] = t.fpx[4 * i + c];
    Bc6hOptions o;
    o.level = opt.block.level;
    o.is_signed = g.fmt.is_signed;
    encode_bc6h_block(rgb, blk, o);
}

inline void encode_block(const EncodeGeometry& g, BlockTexels& t, uint8_t* blk, const SurfaceOptions& opt) {
    switch (g.fmt.family) {
    case Family::BC1:
    case Family::BC2:
    case Family::BC3:
    case Family::BC7:
        encode_rgba8_block(g, t, blk, opt);
        break;
    case Family::BC4:
    case Family::BC5:
        encode_rg_block(g, t, blk, opt);
        break;
    case Family::BC6H:
        encode_hdr_block(g, t, blk, opt);
        break;
    }
}

} // namespace

void encode_surface(const af_host* host, const af_surface& src, af_surface& dst, const SurfaceOptions& opt) {
    auto f = classify(dst.format);
    if (!f) sdk::unsupported(format("bc: format %u is not a BC format", dst.format));
    const Pixels kind = output_kind(src.format);
    if (kind == Pixels::RGBA16F) sdk::usage("bc: encode input must be R8G8B8A8_UNORM(_SRGB) or R32G32B32A32_FLOAT");
    check_sizes(dst, src, kind);
    const uint32_t w = src.width, h = src.height, d = std::max(src.depth, 1u);
    const uint32_t bw = (w + 3) / 4, bh = (h + 3) / 4;
    const uint64_t rows = uint64_t(bh) * d;
    const bool float_in = kind == Pixels::RGBA32F;
    const EncodeGeometry g{*f,
                           kind,
                           w,
                           h,
                           size_t(w) * pixel_bytes(kind),
                           float_in,
                           float_in || (opt.normal_map && f->family == Family::BC5)};
    const uint8_t* in = src.data;
    uint8_t* out = dst.data;
    // Coarse grains for slow levels keep the scheduling overhead negligible either way.
    const uint64_t grain = opt.block.level >= 3 ? 1 : 4;

    sdk::parallel_for(host, rows, grain, [&](uint64_t begin, uint64_t end) {
        for (uint64_t row = begin; row < end; ++row) {
            check_cancel(host);
            const uint64_t slice = row / bh;
            const uint32_t by = uint32_t(row % bh);
            const uint8_t* slice_in = in + slice * g.pitch * h;
            uint8_t* blk = out + row * bw * g.fmt.block_bytes;
            for (uint32_t bx = 0; bx < bw; ++bx, blk += g.fmt.block_bytes) {
                BlockTexels t;
                gather_block(g, slice_in, bx, by, t);
                encode_block(g, t, blk, opt);
            }
        }
    });
}

af_status decode_codec(const af_host* host, const af_surface* src, af_surface* dst, const af_options*,
                       af_error* error) {
    return sdk::guard(error, [&] {
        if (!src || !dst) sdk::usage("bc: decode needs a source and a destination surface");
        decode_surface(host, *src, *dst);
    });
}

af_status encode_codec(const af_host* host, const af_surface* src, af_surface* dst, const af_options* options,
                       af_error* error) {
    return sdk::guard(error, [&] {
        if (!src || !dst) sdk::usage("bc: encode needs a source and a destination surface");
        encode_surface(host, *src, *dst, parse_options(options));
    });
}

} // namespace af::bc
