// BC6H encoder bounds: every decoded texel lies inside its block's per-channel
// range, widened by one endpoint step of the mode the block uses, and the error
// stays under a bound per kind of block. Checked on blocks that broke these (kept
// as literal halves, every level 0–10), on seeded random blocks (levels 0, 1, 3,
// 6, 10), and through Pillow's decoder.
//
// The range is taken in halves as integers (sign-magnitude for SF16), where
// order is the order of the values. A mode with epb endpoint bits stores an
// endpoint to 2^(16 − epb) in the decoder's interpolation domain (UF16: epb bits
// over 0..0xFFFF; SF16: epb − 1 magnitude bits over 0..0x7FFF), and the final
// scaling by 31/64 (UF16) or 31/32 (SF16) turns that into halves: the step.
// An encoder that places endpoints inside the range and rounds them to the
// nearest stored value stays within 0.75 of a step, and interpolation between
// two endpoints never leaves them.
//
// Errors are relative to the block's largest magnitude (`peak`): the largest
// |decoded − source| of a texel channel, and the root mean square over the
// block's 48 values.
#include "bc6h_modes.hpp"
#include "bptc.hpp"
#include "dds_dx10_writer.hpp"
#include "pillow_reference.hpp"

#include "assetforge/half.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace af::bc::bc6h_bounds_test {
namespace {

int half_as_int(uint16_t h, bool is_signed) { return is_signed && (h & 0x8000) ? -int(h & 0x7fff) : int(h); }

// One endpoint step of the block's mode in halves as integers, rounded up; 0 for a reserved mode.
int step_of(const uint8_t blk[16], bool is_signed) {
    const int mode = bc6h::mode_index(blk[0]);
    if (mode < 0) return 0;
    const int epb = bc6h::kModes[mode].epb;
    const int step = epb >= 16 ? 1 : 1 << (16 - epb);
    const int den = is_signed ? 32 : 64;
    return (step * 31 + den - 1) / den;
}

struct Outcome {
    double excess = 0; // farthest decoded value outside the source range, in steps (> 1 breaks the bound)
    double max_err = 0, rms_err = 0;
    uint16_t decoded[48];
};

Outcome check_block(const uint16_t src[48], bool is_signed, const uint8_t blk[16]) {
    Outcome o;
    decode_bc6h_block(blk, o.decoded, is_signed);
    const int step = step_of(blk, is_signed);
    if (step == 0) {
        o.excess = std::numeric_limits<double>::infinity();
        return o;
    }
    int lo[3], hi[3];
    double peak = 0;
    for (int c = 0; c < 3; ++c) lo[c] = hi[c] = half_as_int(src[c], is_signed);
    for (int i = 0; i < 48; ++i) {
        const int v = half_as_int(src[i], is_signed);
        lo[i % 3] = std::min(lo[i % 3], v), hi[i % 3] = std::max(hi[i % 3], v);
        peak = std::max(peak, double(std::fabs(half_to_float(src[i]))));
    }
    if (peak == 0) peak = 1; // all zero: errors are absolute
    double se = 0;
    for (int i = 0; i < 48; ++i) {
        const int d = half_as_int(o.decoded[i], is_signed);
        o.excess = std::max(o.excess, double(std::max(lo[i % 3] - d, d - hi[i % 3])) / step);
        const double e = double(half_to_float(o.decoded[i])) - double(half_to_float(src[i]));
        o.max_err = std::max(o.max_err, std::fabs(e) / peak);
        se += e * e;
    }
    o.rms_err = std::sqrt(se / 48) / peak;
    return o;
}

Outcome encode_and_check(const uint16_t src[48], bool is_signed, int level) {
    float rgb[48];
    for (int i = 0; i < 48; ++i) rgb[i] = half_to_float(src[i]);
    Bc6hOptions opt;
    opt.level = level;
    opt.is_signed = is_signed;
    uint8_t blk[16];
    encode_bc6h_block(rgb, blk, opt);
    return check_block(src, is_signed, blk);
}

struct Reported {
    const char* what;
    bool is_signed;
    double max_err;
    uint16_t h[48];
};

// clang-format off
const Reported kReported[] = {
    // The user report's pattern: bright texels, some with a zero channel, and a
    // mid-grey (0.498) texel. Zeros pulled endpoints to 0: the grey texel came
    // back as (6.17, 3.15, 0.44) and 7.86 as 50.75 (the block's red stops at 8.7).
    {"bright, zero channels, mid-grey", false, 0.3,
     {0x485b, 0x430c, 0x4c40, 0x4720, 0x42a5, 0x0000, 0x0000, 0x42a2, 0x4af9, 0x47dd, 0x0000, 0x4c49,
      0x481f, 0x43b4, 0x4aeb, 0x47a3, 0x438a, 0x4cf3, 0x4780, 0x4197, 0x4c2c, 0x4651, 0x4390, 0x4cc9,
      0x4705, 0x4245, 0x0000, 0x4664, 0x42f0, 0x4cfd, 0x46f8, 0x4224, 0x4c62, 0x480f, 0x42e6, 0x4ca5,
      0x37f8, 0x37f8, 0x37f8, 0x47bf, 0x42ed, 0x4cb0, 0x46f3, 0x4225, 0x4cb6, 0x46b3, 0x422a, 0x4cef}},
    // SF16, channels of random sign around ±128..230 and one bright texel: an
    // endpoint extrapolated to the format's largest value, 128 decoded as 65504.
    // No line follows random signs, so only the range bounds the error here.
    {"signed, random signs, one bright texel", true, 1.1,
     {0xd800, 0xd866, 0xd8cd, 0x621e, 0x6688, 0x69c9, 0x599a, 0x5a00, 0x5a66, 0xda66, 0x5acd, 0xdb33,
      0x5800, 0xd866, 0xd8cd, 0xd8cd, 0x5933, 0x599a, 0x599a, 0x5a00, 0x5a66, 0x5a66, 0xdacd, 0x5b33,
      0x5800, 0xd866, 0x58cd, 0x58cd, 0xd933, 0xd99a, 0x599a, 0x5a00, 0x5a66, 0xda66, 0x5acd, 0x5b33,
      0x5800, 0x5866, 0xd8cd, 0x58cd, 0x5933, 0x599a, 0x599a, 0xda00, 0xda66, 0x5a66, 0x5acd, 0xdb33}},
    // A smooth block of a real texture (rock, HDR as in bptc_bench): least
    // squares put the green endpoint two 12-bit steps under the block's minimum.
    {"smooth texture block", false, 0.3,
     {0x47da, 0x4584, 0x424a, 0x486a, 0x4634, 0x4313, 0x48e6, 0x46df, 0x43da, 0x4962, 0x478b, 0x4450,
      0x47d9, 0x4583, 0x4249, 0x4869, 0x4632, 0x4312, 0x48e5, 0x46dc, 0x43d7, 0x4961, 0x4789, 0x444e,
      0x47d7, 0x4581, 0x4248, 0x4868, 0x462f, 0x4310, 0x48e5, 0x46db, 0x43d6, 0x4961, 0x4789, 0x444e,
      0x47d6, 0x457f, 0x4247, 0x4869, 0x4631, 0x4311, 0x48e6, 0x46de, 0x43d9, 0x4962, 0x478b, 0x4450}},
    // A dark block of the same texture with zeros: in range, but the zeros took
    // the endpoints and the brightest green (0.140) came back as 0.086, an error
    // of 0.38 of the block's peak at every level.
    {"dark texture block with zeros", false, 0.3,
     {0x26f5, 0x293d, 0x2522, 0x2476, 0x2679, 0x2181, 0x12c4, 0x1f6c, 0x0000, 0x0000, 0x1da3, 0x0000,
      0x2873, 0x2a8d, 0x26cb, 0x2651, 0x285b, 0x2476, 0x2602, 0x2776, 0x2476, 0x228b, 0x2435, 0x200a,
      0x2fce, 0x307c, 0x2eba, 0x2a52, 0x2c36, 0x282c, 0x2720, 0x288b, 0x24ff, 0x24ba, 0x2629, 0x2181,
      0x2f70, 0x3062, 0x2e24, 0x2c25, 0x2d5a, 0x29a8, 0x288b, 0x29c4, 0x256b, 0x27a2, 0x28d5, 0x24dc}},
    // A small colour gradient (property search): three steps under the blue minimum at level 0.
    {"gradient", false, 0.3,
     {0x27b4, 0x2f40, 0x2f03, 0x2853, 0x2fee, 0x2fae, 0x28cc, 0x304e, 0x302d, 0x2945, 0x30a5, 0x3082,
      0x26fd, 0x2ebd, 0x2e81, 0x27ef, 0x2f6a, 0x2f2c, 0x2870, 0x300c, 0x2fd8, 0x28e9, 0x3063, 0x3041,
      0x2646, 0x2e39, 0x2e00, 0x2738, 0x2ee7, 0x2eab, 0x2815, 0x2f95, 0x2f56, 0x288e, 0x3021, 0x3001,
      0x258f, 0x2db6, 0x2d7e, 0x2681, 0x2e63, 0x2e29, 0x2773, 0x2f11, 0x2ed4, 0x2832, 0x2fbf, 0x2f80}},
    // SF16 gradient with negative green and blue: four steps outside at every level.
    {"signed gradient", true, 0.3,
     {0x31b0, 0xb3d5, 0xae24, 0x326b, 0xb39e, 0xad3e, 0x3326, 0xb368, 0xac59, 0x33e2, 0xb332, 0xaae8,
      0x31db, 0xb3c8, 0xadee, 0x3297, 0xb392, 0xad09, 0x3352, 0xb35b, 0xac24, 0x3407, 0xb325, 0xaa7d,
      0x3207, 0xb3bb, 0xadb8, 0x32c2, 0xb385, 0xacd3, 0x337e, 0xb34f, 0xabdc, 0x341d, 0xb318, 0xaa12,
      0x3233, 0xb3af, 0xad83, 0x32ee, 0xb378, 0xac9e, 0x33aa, 0xb342, 0xab71, 0x3432, 0xb30c, 0xa9a7}},
    // A gradient with one brighter grey texel (property search): three steps outside.
    {"gradient and a grey texel", false, 0.3,
     {0x35f3, 0x35f3, 0x35f3, 0x3019, 0x2a50, 0x29bf, 0x2f87, 0x29ac, 0x2912, 0x2edd, 0x2908, 0x2865,
      0x30c4, 0x2b9a, 0x2b1b, 0x306f, 0x2af6, 0x2a6e, 0x301a, 0x2a52, 0x29c1, 0x2f89, 0x29ae, 0x2914,
      0x311a, 0x2c20, 0x2bca, 0x30c5, 0x2b9b, 0x2b1d, 0x3070, 0x2af8, 0x2a70, 0x301b, 0x2a54, 0x29c3,
      0x3170, 0x2c73, 0x2c3d, 0x311b, 0x2c21, 0x2bcc, 0x30c6, 0x2b9d, 0x2b1f, 0x3071, 0x2af9, 0x2a72}},
};
// clang-format on

// Seeded random blocks. Only the generator's raw output is used (the standard
// fixes mt19937's sequence, not the distributions'), so the blocks are the same
// everywhere.
struct BlockRng {
    std::mt19937 gen;
    float unit() { return float(gen() >> 8) * 0x1p-24f; } // [0, 1)
    int below(int n) { return int(gen() % uint32_t(n)); }
};

enum class Shape { flat, outlier, two_colours, gradient, gradient_outlier, wide, near_zero, noise };
constexpr Shape kShapes[] = {
    Shape::flat, Shape::outlier,   Shape::two_colours, Shape::gradient, Shape::gradient_outlier,
    Shape::wide, Shape::near_zero, Shape::noise};

const char* shape_name(Shape s) {
    switch (s) {
    case Shape::flat:
        return "flat";
    case Shape::outlier:
        return "one outlier";
    case Shape::two_colours:
        return "two colours";
    case Shape::gradient:
        return "gradient";
    case Shape::gradient_outlier:
        return "gradient and one outlier";
    case Shape::wide:
        return "wide dynamic range";
    case Shape::near_zero:
        return "near zero";
    case Shape::noise:
        return "noise";
    }
    return "?";
}

// A block of `shape` as halves. `max_scale` caps the magnitudes (65504, the
// largest half, or 1 for the Pillow check, whose 8-bit output shows only 0..1);
// UF16 blocks are never negative.
void random_block(BlockRng& rng, Shape shape, bool is_signed, float max_scale, uint16_t out[48]) {
    const float scale = std::min(std::exp2(rng.unit() * 24 - 12), max_scale * 0.5f);
    float base[3], other[3], slope[3];
    for (int c = 0; c < 3; ++c) {
        base[c] = scale * (0.25f + rng.unit());
        other[c] = base[c] * std::exp2(rng.unit() * 16 - 8); // up to 8 binades either way
        slope[c] = 0.3f * (1 + rng.unit() - 0.5f);
        if (is_signed && rng.below(2)) base[c] = -base[c];
        if (is_signed && rng.below(2)) other[c] = -other[c];
    }
    if (rng.below(3) == 0) other[0] = other[1] = other[2] = 0.498f; // the report's mid-grey
    const int odd_texel = rng.below(16);
    const uint32_t mask = rng.gen();
    const float dx = rng.unit() - 0.5f, dy = rng.unit() - 0.5f;
    for (int t = 0; t < 16; ++t)
        for (int c = 0; c < 3; ++c) {
            const float x = float(t % 4), y = float(t / 4);
            float v = 0;
            switch (shape) {
            case Shape::flat:
                v = base[c];
                break;
            case Shape::outlier:
                v = t == odd_texel ? other[c] : base[c];
                break;
            case Shape::two_colours:
                v = (mask >> t) & 1 ? other[c] : base[c];
                break;
            case Shape::gradient:
            case Shape::gradient_outlier:
                // One direction in the block and in colour: a line, which a BC6H region can follow.
                // Signed blocks are shifted so that they cross zero.
                v = std::fabs(base[c]) * (1 + slope[c] * (dx * x + dy * y));
                if (is_signed) v -= scale * 0.7f;
                if (shape == Shape::gradient_outlier && t == odd_texel) v = other[c];
                break;
            case Shape::wide:
                v = std::min(std::exp2(rng.unit() * 16 - 12), max_scale);
                break;
            case Shape::near_zero:
                v = rng.below(4) ? rng.unit() * 0x1p-13f : 0.0f;
                break;
            case Shape::noise:
                v = scale * rng.unit();
                break;
            }
            if (is_signed && (shape == Shape::wide || shape == Shape::near_zero || shape == Shape::noise) &&
                rng.below(2))
                v = -v;
            out[3 * t + c] = float_to_half(std::clamp(v, is_signed ? -max_scale : 0.0f, max_scale));
        }
}

struct Bound {
    double max_err, rms_err;
};

// Worst case allowed per shape. Flat blocks must come back exactly; one or
// two colours lie on a line, so only endpoint precision (10 bits or better
// for the one-region modes) is lost. A gradient is a line too, but in linear
// light, while BC6H interpolates between half bit patterns; signed gradients
// cross zero, where that interpolation runs through every small magnitude of
// both signs. Wide, near-zero and noise blocks have no line to follow: the
// range is their real bound, and the RMS holds the block as a whole. The
// values are the worst measured over these seeds when they were set, about a
// third added (max / RMS, UF16 then SF16): outlier 0.015/0.009, 0.028/0.018;
// two colours 0.014/0.006, 0.025/0.017; gradient 0.078/0.025, 0.72/0.21;
// gradient and outlier 0.30/0.080, 0.70/0.18; wide 0.99/0.27, 1.17/0.33; near
// zero 0.74/0.23, 1.22/0.38; noise 0.75/0.27, 1.35/0.62.
Bound bound_for(Shape s, bool is_signed) {
    switch (s) {
    case Shape::flat:
        return {0, 0};
    case Shape::outlier:
    case Shape::two_colours:
        return {0.04, 0.03};
    case Shape::gradient:
        return is_signed ? Bound{1.0, 0.3} : Bound{0.12, 0.04};
    case Shape::gradient_outlier:
        return is_signed ? Bound{1.0, 0.3} : Bound{0.45, 0.12};
    case Shape::wide:
        return is_signed ? Bound{1.5, 0.45} : Bound{1.0, 0.4};
    case Shape::near_zero:
        return is_signed ? Bound{1.5, 0.5} : Bound{1.0, 0.35};
    case Shape::noise:
        return is_signed ? Bound{1.75, 0.85} : Bound{1.0, 0.4};
    }
    return {0, 0};
}

void write_file(const std::filesystem::path& p, const std::vector<uint8_t>& bytes) {
    std::ofstream(p, std::ios::binary)
        .write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
}

} // namespace

TEST_CASE("bc6h encoder keeps the reported blocks inside their range", "[bc6h][encode][bounds]") {
    for (const Reported& r : kReported)
        for (int level = 0; level <= 10; ++level) {
            CAPTURE(r.what, level);
            const Outcome o = encode_and_check(r.h, r.is_signed, level);
            CHECK(o.excess <= 1.0);
            CHECK(o.max_err <= r.max_err);
        }
}

TEST_CASE("bc6h encoder holds random blocks to their range and error bounds", "[bc6h][encode][bounds]") {
    // 120 blocks per shape and signedness at five levels, and once more for what
    // the first encoding decoded to: BC6H's own output must survive a second pass.
    const int levels[] = {0, 1, 3, 6, 10};
    for (Shape shape : kShapes)
        for (bool is_signed : {false, true}) {
            BlockRng rng{std::mt19937(7000 + 2 * int(shape) + int(is_signed))};
            const Bound b = bound_for(shape, is_signed);
            double worst_excess = 0, worst_max = 0, worst_rms = 0;
            for (int n = 0; n < 120; ++n) {
                uint16_t src[48];
                random_block(rng, shape, is_signed, 65504.0f, src);
                for (int level : levels) {
                    const Outcome o = encode_and_check(src, is_signed, level);
                    const Outcome again = encode_and_check(o.decoded, is_signed, level);
                    worst_excess = std::max({worst_excess, o.excess, again.excess});
                    worst_max = std::max({worst_max, o.max_err, again.max_err});
                    worst_rms = std::max({worst_rms, o.rms_err, again.rms_err});
                }
            }
            CAPTURE(shape_name(shape), is_signed, worst_excess, worst_max, worst_rms);
            CHECK(worst_excess <= 1.0);
            CHECK(worst_max <= b.max_err);
            CHECK(worst_rms <= b.rms_err);
        }
}

TEST_CASE("bc6h encoder output stays in range through Pillow's decoder", "[bc6h][encode][bounds][pillow]") {
    // The random shapes scaled into 0..1 (all Pillow's 8-bit output shows), one
    // 64×64 DDS per signedness and level. SF16 blocks are non-negative here:
    // Pillow does not sign-extend transformed endpoints (bc_bptc_pillow_test.cpp).
    // Pillow's bytes are trunc(255·value) of its own interpolation, which may sit
    // half a half-ulp below ours: so each byte may be 1 under the range's.
    test::ScratchDir dir;
    struct Surface {
        bool is_signed;
        int level;
        std::vector<uint16_t> src; // 256 blocks × 48 halves
        std::vector<uint8_t> blocks;
    };
    std::vector<Surface> surfaces;
    std::vector<std::filesystem::path> files;
    for (bool is_signed : {false, true})
        for (int level : {0, 3, 6, 10}) {
            Surface s{is_signed, level, std::vector<uint16_t>(256 * 48), std::vector<uint8_t>(256 * 16)};
            BlockRng rng{std::mt19937(8100 + int(is_signed))};
            for (int b = 0; b < 256; ++b) {
                random_block(rng, kShapes[b % 8], false, 1.0f, &s.src[48 * b]);
                float rgb[48];
                for (int i = 0; i < 48; ++i) rgb[i] = half_to_float(s.src[48 * b + i]);
                Bc6hOptions opt;
                opt.level = level;
                opt.is_signed = is_signed;
                encode_bc6h_block(rgb, &s.blocks[16 * b], opt);
            }
            files.push_back(dir.path / ("bounds_" + std::to_string(files.size()) + ".dds"));
            write_file(files.back(), test::make_dds_dx10(64, 64, is_signed ? 96 : 95, s.blocks));
            surfaces.push_back(std::move(s));
        }
    auto ref = test::decode_or_skip(files);
    if (!ref) return; // Pillow (python3-pil) is not installed
    auto to_byte = [](float v) { return v <= 0 ? 0 : v >= 1 ? 255 : int(v * 255.0f); };
    for (size_t f = 0; f < surfaces.size(); ++f) {
        const Surface& s = surfaces[f];
        CAPTURE(s.is_signed, s.level);
        REQUIRE((*ref)[f].size() == size_t(64) * 64 * 4);
        int outside = 0, disagree = 0, inside_0_255 = 0;
        for (int b = 0; b < 256; ++b) {
            const uint16_t* src = &s.src[48 * b];
            const int step = step_of(&s.blocks[16 * b], s.is_signed);
            uint16_t ours[48];
            decode_bc6h_block(&s.blocks[16 * b], ours, s.is_signed);
            for (int c = 0; c < 3; ++c) {
                int lo = half_as_int(src[c], s.is_signed), hi = lo;
                for (int t = 1; t < 16; ++t) {
                    const int v = half_as_int(src[3 * t + c], s.is_signed);
                    lo = std::min(lo, v), hi = std::max(hi, v);
                }
                // The widened range as values (halves are ordered like their integers; none is negative here).
                const float lo_v = half_to_float(uint16_t(std::max(0, lo - step)));
                const float hi_v = half_to_float(uint16_t(std::min(0x7bff, hi + step)));
                for (int t = 0; t < 16; ++t) {
                    const int x = (b % 16) * 4 + t % 4, y = (b / 16) * 4 + t / 4;
                    const int pillow = (*ref)[f][4 * (size_t(y) * 64 + x) + c];
                    outside += pillow < to_byte(lo_v) - 1 || pillow > to_byte(hi_v);
                    disagree += std::abs(pillow - to_byte(half_to_float(ours[3 * t + c]))) > 1;
                    inside_0_255 += pillow > 0 && pillow < 255;
                }
            }
        }
        CHECK(outside == 0);
        CHECK(disagree == 0);
        CHECK(inside_0_255 > 0); // Pillow's bytes said something
    }
}

} // namespace af::bc::bc6h_bounds_test
