// An in-process af_host for harnesses whose parsers hand surfaces to the
// host's convert service: compressed formats go straight to the BC codec's
// kernels (bc_impl), everything else through the core. Serial (no
// parallel_for), and with small limits so a fuzzer's hostile sizes meet the
// plugins' limit checks instead of the machine's memory.
#pragma once

#include "bc_surface.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"

#include <cstdlib>
#include <cstring>
#include <vector>

namespace fuzzhost {

inline bool codec_output(uint32_t f) {
    return f == af::FMT_R8G8B8A8_UNORM || f == af::FMT_R8G8B8A8_UNORM_SRGB || f == af::FMT_R16G16B16A16_FLOAT ||
           f == af::FMT_R32G32B32A32_FLOAT;
}

inline void convert_slice(uint32_t sf, const uint8_t* in, uint64_t in_size, uint32_t df, uint8_t* out,
                          uint64_t out_size, uint32_t w, uint32_t h) {
    if (sf == df) {
        std::memcpy(out, in, in_size);
        return;
    }
    const af::FormatInfo* si = af::format_info(sf);
    const af::FormatInfo* di = af::format_info(df);
    std::vector<float> px(size_t(w) * h * 4);
    if (si->compressed()) {
        af_surface s{sf, w, h, 1, const_cast<uint8_t*>(in), in_size};
        if (codec_output(df)) {
            af_surface d{df, w, h, 1, out, out_size};
            af::bc::decode_surface(nullptr, s, d);
            return;
        }
        af_surface d{af::FMT_R32G32B32A32_FLOAT, w, h, 1, reinterpret_cast<uint8_t*>(px.data()), px.size() * 4};
        af::bc::decode_surface(nullptr, s, d);
    } else {
        af::decode_texels(sf, in, in_size, w, h, px.data());
    }
    if (di->compressed()) {
        af::bc::SurfaceOptions opt;
        opt.block.level = 0; // the fastest encoder: the harness checks parsers, not quality
        af_surface s{af::FMT_R32G32B32A32_FLOAT, w, h, 1, reinterpret_cast<uint8_t*>(px.data()), px.size() * 4};
        af_surface d{df, w, h, 1, out, out_size};
        af::bc::encode_surface(nullptr, s, d, opt);
    } else {
        af::encode_texels(df, px.data(), w, h, out, out_size);
    }
}

inline af_status convert(const af_surface* src, af_surface* dst, const af_options*, af_error* err) {
    return af::sdk::guard(err, [&] {
        if (src->width != dst->width || src->height != dst->height ||
            (src->depth ? src->depth : 1) != (dst->depth ? dst->depth : 1))
            af::sdk::usage("convert: source and destination sizes differ");
        const uint32_t depth = src->depth ? src->depth : 1;
        const uint64_t in_slice = af::surface_bytes(src->format, src->width, src->height);
        const uint64_t out_slice = af::surface_bytes(dst->format, dst->width, dst->height);
        if (!in_slice || !out_slice) af::sdk::unsupported("convert: unknown format id");
        if (src->size < in_slice * depth) af::sdk::invalid(src->size, "convert: source is short");
        if (dst->size < out_slice * depth) af::sdk::usage("convert: destination buffer too small");
        for (uint32_t z = 0; z < depth; ++z)
            convert_slice(src->format, src->data + in_slice * z, in_slice, dst->format, dst->data + out_slice * z,
                          out_slice, src->width, src->height);
    });
}

inline const af_host* host() {
    static const af_host h = [] {
        af_host x{};
        af::sdk::init_header(x);
        x.host_version = "fuzz";
        x.alloc = [](uint64_t n) -> void* { return n > (256u << 20) ? nullptr : std::malloc(n); };
        x.free = [](void* p) { std::free(p); };
        x.log = [](int32_t, const char*) {};
        x.cancelled = [] { return int32_t(0); };
        x.progress = [](uint64_t, uint64_t) {};
        x.convert = convert;
        x.max_texture_bytes = 64u << 20;
        x.max_dimension = 16384;
        x.max_surfaces = 4096;
        x.max_items = 1u << 16;
        return x;
    }();
    return &h;
}

} // namespace fuzzhost
