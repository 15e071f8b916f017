// Mip chains: each level filtered from the previous one in the float working
// space (no rounding between levels), then stored in the source's pixel type.
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"

#include <algorithm>

namespace af {

namespace {

uint32_t full_chain_length(uint32_t w, uint32_t h) {
    uint32_t n = 1;
    while (w > 1 || h > 1) {
        w = std::max(1u, w / 2);
        h = std::max(1u, h / 2);
        ++n;
    }
    return n;
}

void clear_blue(Texture& img) {
    for (size_t i = 2; i < texels(img) * 4; i += 4) {
        if (is_float(img))
            floats(img)[i] = 0.0f;
        else
            img.data[i] = 0;
    }
}

} // namespace

std::vector<Texture> generate_mips(Texture top, const MipOptions& opt) {
    image_ops::check_image(top, "mips");
    if (texels(top) == 0) sdk::usage("mips: the source image is empty");
    if (opt.alpha_coverage_ref > 1.0f)
        sdk::usage(sdk::format("mips: alpha coverage reference %g is not in 0..1", opt.alpha_coverage_ref));

    uint32_t levels = full_chain_length(top.desc.width, top.desc.height);
    if (opt.count) levels = std::min(levels, opt.count);

    std::vector<Texture> out;
    out.reserve(levels);
    if (levels == 1) {
        out.push_back(std::move(top));
        return out;
    }

    const image_ops::WorkSpace ws = image_ops::working_space_for(top, opt, opt.normal_map);
    const bool keep_coverage = opt.alpha_coverage_ref >= 0.0f;
    const double coverage = keep_coverage ? alpha_coverage(top, opt.alpha_coverage_ref) : 0.0;
    const bool bytes = !is_float(top);
    const bool as_float = is_float(top);
    const bool srgb = is_srgb(top.desc);

    // Level 1 is filtered from the top level's rows as they are needed, not
    // from a float copy of the whole top level (16-32 bytes per texel).
    image_ops::WorkPlane cur;
    uint32_t w = top.desc.width, h = top.desc.height;
    for (uint32_t level = 1; level < levels; ++level) {
        w = std::max(1u, w / 2);
        h = std::max(1u, h / 2);
        if (std::max(w, h) < opt.min_size) break;
        image_ops::WorkPlane next = level == 1 ? image_ops::resample_image(top, ws, w, h, opt.filter, opt.edge)
                                               : image_ops::resample(cur, w, h, opt.filter, opt.edge);
        // Renormalised before it becomes the source of the next level, so
        // every level is filtered from unit vectors.
        if (ws.normal) image_ops::renormalize_in_place(next);
        float alpha_scale =
            keep_coverage ? image_ops::coverage_alpha_scale(next, coverage, opt.alpha_coverage_ref, bytes) : 1.0f;
        Texture img = image_ops::from_working(next, ws, alpha_scale, as_float, srgb);
        if (ws.normal_two_channel) clear_blue(img);    // stays two-channel like its source
        if (level == 1) out.push_back(std::move(top)); // level 0 is the source itself
        out.push_back(std::move(img));
        cur = std::move(next);
    }
    if (out.empty()) out.push_back(std::move(top));
    return out;
}

} // namespace af
