#include "xtf_stages.hpp"

#include "block_copy.hpp"
#include "xbox_swizzle.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"

namespace af::xtf {

using sdk::format;

namespace {

af_status emit_bytes(const af_stage_io* io, const af_item& in, const std::vector<uint8_t>& bytes) {
    af_item out{};
    sdk::init_header(out);
    out.name = in.name;
    out.bytes = bytes.data();
    out.size = bytes.size();
    out.meta = in.meta;
    out.meta_count = in.meta_count;
    return io->emit(io->ctx, &out);
}

} // namespace

af_status run_xtf_write(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        const XtfWriteOptions opt = parse_xtf_write_options(params);
        for (uint32_t i = 0; i < io->input_count; ++i) {
            const af_item& item = *io->inputs[i];
            if (!item.texture)
                sdk::usage(
                    format("xtf.write: input '%s' is not a texture (decode it first)", item.name ? item.name : "?"));
            const Texture tex = sdk::import_texture(*item.texture);
            const auto bytes = write_xtf(host, tex, opt);
            if (af_status s = emit_bytes(io, item, bytes); s != AF_OK)
                sdk::fail(s, AF_NO_OFFSET, "xtf.write: emit failed");
        }
    });
}

namespace {

template <bool ToSwizzled>
af_status run_raw(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return sdk::guard(error, [&] {
        const RawSurfaceParams p = parse_raw_surface_params(params);
        for (uint32_t i = 0; i < io->input_count; ++i) {
            const af_item& item = *io->inputs[i];
            if (!item.bytes)
                sdk::usage(ToSwizzled ? "swizzle: input is not raw bytes" : "deswizzle: input is not raw bytes");
            const auto out = swizzle_raw(host, item.bytes, item.size, p, ToSwizzled);
            if (af_status s = emit_bytes(io, item, out); s != AF_OK) sdk::fail(s, AF_NO_OFFSET, "emit failed");
        }
    });
}

} // namespace

af_status run_swizzle(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return run_raw<true>(host, io, params, error);
}

af_status run_deswizzle(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error) {
    return run_raw<false>(host, io, params, error);
}

RawSurfaceParams parse_raw_surface_params(const af_options* params) {
    sdk::Options o(params);
    if (!o.get("width") || !o.get("height") || !o.get("bpp"))
        sdk::usage("swizzle/deswizzle need the parameters width, height and bpp (bits per texel); depth is optional");
    RawSurfaceParams p;
    p.width = uint32_t(o.integer("width", 0, 1, 1 << 16));
    p.height = uint32_t(o.integer("height", 0, 1, 1 << 16));
    p.depth = uint32_t(o.integer("depth", 1, 1, 1 << 16));
    p.bits_per_texel = uint32_t(o.integer("bpp", 0, 8, 128));
    if (p.bits_per_texel % 8)
        sdk::usage(format("bpp %u: the Xbox swizzle moves whole bytes (8, 16, 24, 32, 64 or 128)", p.bits_per_texel));
    if (!swizzle_representable(p.width, p.height, p.depth))
        sdk::usage(
            format("%ux%ux%u: the Xbox swizzle is defined for power-of-two extents only", p.width, p.height, p.depth));
    return p;
}

std::vector<uint8_t> swizzle_raw(const af_host* host, const uint8_t* data, uint64_t size, const RawSurfaceParams& p,
                                 bool to_swizzled) {
    const uint64_t need = uint64_t(p.width) * p.height * p.depth * (p.bits_per_texel / 8);
    if (size != need)
        sdk::invalid(size < need ? size : need,
                     format("raw surface %ux%ux%u at %u bits per texel is %llu bytes, the input has %llu", p.width,
                            p.height, p.depth, p.bits_per_texel, (unsigned long long)need, (unsigned long long)size));
    std::vector<uint8_t> out(need);
    copy_blocks(host, {{data, out.data(), p.width, p.height, p.depth, need, "raw surface"}}, p.bits_per_texel / 8,
                to_swizzled);
    return out;
}

} // namespace af::xtf
