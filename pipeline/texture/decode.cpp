#include "texture/levels.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"
#include "host/texture_io.hpp"

#include <span>

namespace af::texture {

bool snorm_like(const FormatInfo& f) { return f.is_signed() && !(f.flags & fmtflag::hdr); }

void map_channels(float* rgba, size_t count, float scale, float bias) {
    for (size_t i = 0; i < count; ++i) rgba[i] = rgba[i] * scale + bias;
}

// Every channel of signed data from -1..1 to 0..1, alpha too: a signed format's fourth channel is data (VTF's
// UVWQ8888), and a negative one must survive the PNG an editor holds. A format without alpha decodes to 1, which
// both mappings keep. (HDR formats such as BC6H SF16 keep their values: they are not -1..1.)
// Every surface of an RGBA32F texture, a picture or a whole decoded one.
void signed_to_unit(Texture& img) {
    const std::span<float> f = floats(img);
    map_channels(f.data(), f.size(), 0.5f, 0.5f);
}

namespace {

std::string preview_note(uint32_t format) {
    if (format >= FMT_BC4_TYPELESS && format <= FMT_BC4_SNORM)
        return "BC4 stores one channel: the preview shows it in red, (R, 0, 0, 1), as a shader sampling .rgb sees it";
    if (format >= FMT_BC5_TYPELESS && format <= FMT_BC5_SNORM)
        return "BC5 stores two channels: the preview shows (R, G, 0, 1), as a shader sampling .rgb sees it "
               "(normal maps rebuild blue in the shader)";
    return "";
}

} // namespace

Decoded decode(Ops& ops, const Texture& t, DecodeTo to) {
    const FormatInfo* f = format_info(t.desc.format);
    if (!f) sdk::unsupported("format id " + std::to_string(t.desc.format));
    const bool as_float = to == DecodeTo::Rgba32f || (to == DecodeTo::Auto && f->decodes_to_float());
    const bool srgb = is_srgb(t);
    const bool linear = known_linear(t);
    // Wide data that is neither HDR nor signed (16-bit UNORM, 10-bit) stays
    // 16-bit UNORM: exact, and not mistaken for HDR (or linear) downstream.
    const bool hdr_or_signed = (f->flags & fmtflag::hdr) || f->is_signed();
    const uint32_t target = !as_float                                  ? with_srgb(FMT_R8G8B8A8_UNORM, srgb)
                            : hdr_or_signed || to == DecodeTo::Rgba32f ? FMT_R32G32B32A32_FLOAT
                                                                       : FMT_R16G16B16A16_UNORM;
    Decoded out;
    out.note = preview_note(t.desc.format);
    if (f->compressed()) ops.use(ops.reg.codec_for(t.desc.format).plugin);
    if (t.desc.format == target) {
        out.texture = t;
    } else {
        out.texture = host::convert_texture(ops.reg, t, target);
        if (target == FMT_R32G32B32A32_FLOAT && snorm_like(*f)) signed_to_unit(out.texture);
    }
    Texture& d = out.texture;
    d.desc.flags &= ~(AF_TEX_SRGB | AF_TEX_LINEAR);
    if (srgb)
        d.desc.flags |= AF_TEX_SRGB;
    else if (linear)
        d.desc.flags |= AF_TEX_LINEAR;
    return out;
}

} // namespace af::texture
