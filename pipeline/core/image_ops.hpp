// Image processing on uncompressed pictures (assetforge/picture.hpp): resize, mip chains, colour space,
// alpha and normal-map operations. Runs in parallel on the TBB arena of the
// calling thread (the host's, when called from a build).
//
// Contract shared by the host, the engine and the plugins; implemented in
// image_ops*.cpp.
#pragma once

#include "assetforge/picture.hpp"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace af {

enum class Filter { Box, Triangle, Kaiser, Lanczos3, Mitchell, Point };
enum class Edge { Clamp, Wrap };

// Parses "box", "kaiser", … ; throws af::sdk::Error (usage) listing valid names.
Filter parse_filter(std::string_view name);
Edge parse_edge(std::string_view name);

struct ResizeOptions {
    Filter filter = Filter::Kaiser;
    Edge edge = Edge::Clamp;
    bool linear_light = true;      // filter sRGB-tagged images in linear light
    bool premultiply_alpha = true; // weight colour by alpha while filtering
};

// Any target size; keeps the image's pixel type and sRGB tag.
Texture resize(const Texture& in, uint32_t width, uint32_t height, const ResizeOptions& opt = {});

struct MipOptions : ResizeOptions {
    float alpha_coverage_ref = -1.0f; // >= 0: keep the fraction of alpha > ref at every level
    bool normal_map = false;          // renormalise texels after filtering (tangent-space, 0..1 encoded)
    uint32_t count = 0;               // 0 = full chain
    uint32_t min_size = 1;            // stop before a level whose larger side is below this
};

// Level 0 is a copy of `top`; each next level is max(1, floor(n/2)) per axis.
// `top` by value: pass it with std::move to save a copy of the top level.
std::vector<Texture> generate_mips(Texture top, const MipOptions& opt = {});

Texture crop(const Texture& in, uint32_t x, uint32_t y, uint32_t width, uint32_t height);

// ---------------------------------------------------------------------------
// Filters (all separable; radii in source texels at scale 1, widened by the
// reduction factor when downsampling):
//   point     nearest texel (no averaging: a checkerboard stays a checkerboard)
//   box       radius 0.5 (2x2 average for a 2:1 reduction)
//   triangle  radius 1, tent (1,3,3,1)/8 for 2:1
//   kaiser    Kaiser-windowed sinc, radius 3, alpha 4 (as nvtt): sharp, little
//             ringing; the default
//   lanczos3  sinc(x)·sinc(x/3), radius 3 (ImageMagick "Lanczos")
//   mitchell  Mitchell–Netravali cubic, B = C = 1/3, radius 2
// Sample positions: output texel x covers source (x + 0.5)·in/out − 0.5, so
// texel centres stay aligned at every size (odd and NPOT included).
// Working space: float; sRGB-tagged colour is filtered in linear light when
// `linear_light`, alpha is never sRGB decoded; colour is weighted by alpha
// when `premultiply_alpha` and the image has any alpha < 1; where the filtered
// alpha ends below one 8-bit step the colour fades to the unweighted average
// (transparent texels keep their neighbourhood's colour instead of black, so
// bilinear sampling shows no dark fringes). An axis whose size does not change
// is not filtered. Clamp repeats the edge texel; wrap tiles.
// Each mip level is filtered from the previous one, kept in float (no rounding
// between levels). Results do not depend on the number of threads.
//
// generate_mips details:
//   - alpha_coverage_ref: per level, alpha is scaled by a factor found by
//     bisection so that the fraction of texels with (stored) alpha > ref
//     matches level 0 (nvtt scaleAlphaToCoverage, texconv --keep-coverage).
//     Each level is filtered from the previous *unscaled* level.
//   - normal_map: RGB is tangent-space XYZ encoded 0..1; it is decoded to
//     -1..1, filtered, renormalised and re-encoded; the sRGB tag is ignored
//     for filtering (normals are data), alpha is not premultiplied. A map whose
//     blue channel is 0 everywhere is two-channel (BC5/ATI2 style): Z is
//     reconstructed for filtering and renormalising, and blue stays 0 in every
//     level (use reconstruct_normal_z on the result to get three channels).
//   - alpha is clamped to 0..1 in every generated level; float colour is not
//     clamped (HDR), 8-bit colour is clamped and rounded.
//   - count counts levels including level 0; min_size drops levels whose
//     larger side is below it (level 0 is always kept).

// Texel count above which resize/generate_mips refuse (a 32768² image).
inline constexpr uint64_t kMaxImageTexels = uint64_t(1) << 30;

// Channel operations. `pattern` is four characters from r g b a 0 1 (case
// insensitive): output channel i takes input channel pattern[i], or the
// constant. "bgra" swaps red and blue, "rrr1" makes grey opaque.
Texture swizzle_channels(const Texture& in, std::string_view pattern);
// Sets every channel named in `channels` ("a", "rgb", …) to `value` (0..1;
// rounded for 8-bit images).
Texture fill_channels(const Texture& in, std::string_view channels, float value);
// v → 1 − v on each channel named (on the stored values).
Texture invert_channels(const Texture& in, std::string_view channels);
// Flips the green channel: OpenGL (Y up) ⇄ DirectX (Y down) normal maps.
Texture invert_normal_y(const Texture& in);

// Premultiplied ⇄ straight alpha. sRGB-tagged images are multiplied in linear
// light and re-encoded (as DirectXTex does by default). Unpremultiplying a
// texel with alpha 0 gives colour 0.
Texture premultiply_alpha(const Texture& in);
Texture unpremultiply_alpha(const Texture& in);

// Colour-space conversion of RGB (alpha untouched) with the IEC 61966-2-1
// curves; the pixel type is kept (convert to float first to keep precision of
// dark linear values), the sRGB tag is set / cleared. The tag says what the
// data is: an image already in the target space is returned unchanged.
Texture convert_srgb_to_linear(const Texture& in);
Texture convert_linear_to_srgb(const Texture& in);

// Float → RGBA8: clamp to 0..1, round to nearest. Dithering adds noise of
// ±0.5 LSB before rounding to colour channels only (alpha is rounded, so
// alpha-tested edges stay put). Ordered: 8x8 Bayer, parallel and stable
// across mips; FloydSteinberg: serpentine error diffusion, serial.
enum class Dither { None, Ordered, FloydSteinberg };
Texture quantize_to_rgba8(const Texture& in, Dither dither = Dither::None);

// Normal maps (0..1 encoded tangent-space XYZ in RGB).
// Z = sqrt(max(0, 1 − x² − y²)) from R and G, written into B.
Texture reconstruct_normal_z(const Texture& in);
// Each texel scaled to unit length (a zero vector becomes +Z).
Texture renormalize_normals(const Texture& in);

// Fraction of texels whose alpha is > ref (alpha as stored, 0..1).
double alpha_coverage(const Texture& in, float ref);
// Scales alpha (clamped to 1) by the factor that brings alpha_coverage(ref)
// closest to `coverage`; returns the new image. Used per level by
// generate_mips; exposed for single images.
Texture scale_alpha_to_coverage(const Texture& in, double coverage, float ref);

// Mip chains of whole textures (every layer and face, any format) are made
// by the texture layer (texture/texture_ops.hpp: texture::mips), which calls
// generate_mips above: there is one mip loop.

} // namespace af
