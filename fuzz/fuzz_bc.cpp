// Every BC decoder on arbitrary blocks. Byte 0 picks the format and the
// output kind, byte 1 the surface extent; the rest are blocks. Besides "no
// crash", each block must satisfy what the format specifications guarantee
// for ANY bit pattern (checked with __builtin_trap so libFuzzer keeps it).
#include "bc_block.hpp"
#include "bc_surface.hpp"
#include "bptc.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

namespace {

constexpr uint32_t kFormats[] = {
    af::FMT_BC1_TYPELESS, af::FMT_BC1_UNORM,      af::FMT_BC1_UNORM_SRGB, af::FMT_BC2_UNORM,   af::FMT_BC2_UNORM_SRGB,
    af::FMT_BC3_UNORM,    af::FMT_BC3_UNORM_SRGB, af::FMT_BC4_UNORM,      af::FMT_BC4_SNORM,   af::FMT_BC5_UNORM,
    af::FMT_BC5_SNORM,    af::FMT_BC6H_UF16,      af::FMT_BC6H_SF16,      af::FMT_BC7_UNORM,   af::FMT_BC7_UNORM_SRGB,
    af::FMT_BC7_TYPELESS, af::FMT_BC6H_TYPELESS,  af::FMT_BC4_TYPELESS,   af::FMT_BC5_TYPELESS};
constexpr size_t kFormatCount = sizeof kFormats / sizeof kFormats[0];
constexpr uint32_t kOutputs[] = {af::FMT_R8G8B8A8_UNORM, af::FMT_R16G16B16A16_FLOAT, af::FMT_R32G32B32A32_FLOAT};

void require(bool fact) {
    if (!fact) __builtin_trap();
}

// BC1: c0 > c1 is the opaque 4-colour mode; otherwise index 3 is
// transparent black, and nothing else is transparent.
void check_bc1(const uint8_t* b) {
    uint8_t px[64];
    af::bc::decode_bc1(b, px, 16);
    const uint16_t c0 = uint16_t(b[0] | b[1] << 8), c1 = uint16_t(b[2] | b[3] << 8);
    for (int i = 0; i < 16; ++i) {
        const uint8_t* p = px + 4 * i;
        const int index = (b[4 + i / 4] >> (2 * (i % 4))) & 3;
        const bool transparent = c0 <= c1 && index == 3;
        require(p[3] == (transparent ? 0 : 255));
        if (transparent) require(p[0] == 0 && p[1] == 0 && p[2] == 0);
    }
}

// BC2: explicit 4-bit alpha, expanded by replication (a × 17).
void check_bc2(const uint8_t* b) {
    uint8_t px[64];
    af::bc::decode_bc2(b, px, 16);
    for (int i = 0; i < 16; ++i) require(px[4 * i + 3] == ((b[i / 2] >> (4 * (i % 2))) & 15) * 17);
}

// BC3/BC4: an index of 0 or 1 gives the endpoint itself.
void check_bc4(const uint8_t* b, bool is_signed) {
    uint8_t v[16];
    float f[16];
    af::bc::decode_bc4_bytes(b, is_signed, v);
    af::bc::decode_bc4_float(b, is_signed, f);
    const uint64_t bits = uint64_t(b[2]) | uint64_t(b[3]) << 8 | uint64_t(b[4]) << 16 | uint64_t(b[5]) << 24 |
                          uint64_t(b[6]) << 32 | uint64_t(b[7]) << 40;
    for (int i = 0; i < 16; ++i) {
        require(std::isfinite(f[i]) && f[i] <= 1.0f && f[i] >= (is_signed ? -1.0f : 0.0f));
        if (is_signed) require(v[i] >= 1);
        const unsigned index = unsigned(bits >> (3 * i)) & 7;
        if (index < 2) {
            const uint8_t e = b[index];
            const uint8_t expect = is_signed ? uint8_t(int8_t(e) == -128 ? 1 : int8_t(e) + 128) : e;
            require(v[i] == expect);
        }
    }
}

void check_bc3(const uint8_t* b) {
    uint8_t px[64], alpha[16];
    af::bc::decode_bc3(b, px, 16);
    af::bc::decode_bc4_bytes(b, false, alpha);
    for (int i = 0; i < 16; ++i) require(px[4 * i + 3] == alpha[i]);
    check_bc4(b, false);
}

// BC7: mode 0 (no set bit in byte 0) is reserved and decodes to transparent
// black; modes 0–3 carry no alpha, so alpha is 255.
void check_bc7(const uint8_t* b) {
    uint8_t px[64];
    af::bc::decode_bc7_block(b, px);
    if (b[0] == 0) {
        for (uint8_t v : px) require(v == 0);
        return;
    }
    if (__builtin_ctz(b[0]) < 4)
        for (int i = 0; i < 16; ++i) require(px[4 * i + 3] == 255);
}

// BC6H: the unquantisation ends at 0x7BFF (largest finite half), so no block
// gives NaN or +Inf; UF16 never gives a negative value (sign bit clear).
// SF16 can give exactly -Inf (0xFC00): a 16-bit endpoint of -32768 scales
// to -0x7C00, which the D3D format notes list as an artefact of the format.
void check_bc6h(const uint8_t* b, bool is_signed) {
    uint16_t h[48];
    af::bc::decode_bc6h_block(b, h, is_signed);
    for (uint16_t v : h) {
        require((v & 0x7c00) != 0x7c00 || (is_signed && v == 0xfc00));
        if (!is_signed) require((v & 0x8000) == 0);
    }
}

void check_blocks(const af::bc::BcFormat& f, const uint8_t* p, size_t n) {
    using af::bc::Family;
    for (; n >= f.block_bytes; p += f.block_bytes, n -= f.block_bytes) {
        switch (f.family) {
        case Family::BC1:
            check_bc1(p);
            break;
        case Family::BC2:
            check_bc2(p);
            break;
        case Family::BC3:
            check_bc3(p);
            break;
        case Family::BC4:
            check_bc4(p, f.is_signed);
            break;
        case Family::BC5:
            check_bc4(p, f.is_signed);
            check_bc4(p + 8, f.is_signed);
            break;
        case Family::BC6H:
            check_bc6h(p, f.is_signed);
            break;
        case Family::BC7:
            check_bc7(p);
            break;
        }
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 2) return 0;
    const uint32_t format = kFormats[data[0] % kFormatCount];
    const uint32_t out_format = kOutputs[(data[0] / kFormatCount) % 3];
    const uint32_t w = 1 + (data[1] & 15), h = 1 + (data[1] >> 4);
    const uint8_t* blocks = data + 2;
    const size_t n = size - 2;
    auto f = af::bc::classify(format);
    require(f.has_value());
    check_blocks(*f, blocks, n);

    // The whole-surface path: an input of the exact size must decode; any
    // other size must be refused with an error, never read past the end.
    const uint64_t need = af::surface_bytes(format, w, h, 1);
    std::vector<uint8_t> src(blocks, blocks + n); // exact-size heap copy so ASan sees overreads
    const uint32_t px_bytes = out_format == af::FMT_R8G8B8A8_UNORM       ? 4
                              : out_format == af::FMT_R16G16B16A16_FLOAT ? 8
                                                                         : 16;
    std::vector<uint8_t> out(size_t(w) * h * px_bytes);
    af_surface s{format, w, h, 1, src.data(), src.size()};
    af_surface d{out_format, w, h, 1, out.data(), out.size()};
    try {
        af::bc::decode_surface(nullptr, s, d);
        require(src.size() == need);
    } catch (const af::sdk::Error&) {
        require(src.size() != need);
        return 0;
    }
    if (out_format == af::FMT_R32G32B32A32_FLOAT) {
        std::vector<float> v(out.size() / 4);
        std::memcpy(v.data(), out.data(), out.size());
        for (float x : v) require(std::isfinite(x) || (f->is_signed && f->family == af::bc::Family::BC6H && x < 0));
    }
    // A whole 4×4 BC7 surface is the block decoder's output, byte for byte.
    if (f->family == af::bc::Family::BC7 && w == 4 && h == 4 && out_format == af::FMT_R8G8B8A8_UNORM) {
        uint8_t px[64];
        af::bc::decode_bc7_block(src.data(), px);
        require(std::memcmp(px, out.data(), 64) == 0);
    }
    return 0;
}
