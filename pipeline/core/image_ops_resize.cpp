// resize and crop of whole images.
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>

namespace af {

Texture resize(const Texture& in, uint32_t width, uint32_t height, const ResizeOptions& opt) {
    image_ops::check_image(in, "resize");
    image_ops::check_target_size(width, height, "resize");
    if (texels(in) == 0) sdk::usage("resize: the source image is empty");
    if (width == in.desc.width && height == in.desc.height) return in;
    const image_ops::WorkSpace ws = image_ops::working_space_for(in, opt, false);
    image_ops::WorkPlane src = image_ops::to_working(in, ws);
    image_ops::WorkPlane dst = image_ops::resample(src, width, height, opt.filter, opt.edge);
    return image_ops::from_working(dst, ws, 1.0f, is_float(in), is_srgb(in.desc));
}

Texture crop(const Texture& in, uint32_t x, uint32_t y, uint32_t width, uint32_t height) {
    image_ops::check_image(in, "crop");
    if (width == 0 || height == 0) sdk::usage(sdk::format("crop: size %ux%u is empty", width, height));
    if (uint64_t(x) + width > in.desc.width || uint64_t(y) + height > in.desc.height)
        sdk::usage(sdk::format("crop: rectangle %ux%u at (%u, %u) exceeds the %ux%u image", width, height, x, y,
                               in.desc.width, in.desc.height));
    Texture out = is_float(in) ? rgba32f_picture(width, height, is_srgb(in.desc))
                               : rgba8_picture(width, height, is_srgb(in.desc));
    for (uint32_t r = 0; r < height; ++r) {
        const size_t src = (size_t(y + r) * in.desc.width + x) * 4, dst = size_t(r) * width * 4;
        if (is_float(in))
            std::memcpy(&floats(out)[dst], &floats(in)[src], size_t(width) * 4 * sizeof(float));
        else
            std::memcpy(&out.data[dst], &in.data[src], size_t(width) * 4);
    }
    return out;
}

} // namespace af
