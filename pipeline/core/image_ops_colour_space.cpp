// sRGB ⇄ linear conversion of whole images.
#include "core/image_ops_internal.hpp"

namespace af {

Texture convert_srgb_to_linear(const Texture& in) {
    image_ops::check_image(in, "to linear");
    if (!is_srgb(in.desc)) return in;
    image_ops::WorkSpace decode;
    decode.linearise = true;
    return image_ops::from_working(image_ops::to_working(in, decode), image_ops::WorkSpace{}, 1.0f, is_float(in),
                                   false);
}

Texture convert_linear_to_srgb(const Texture& in) {
    image_ops::check_image(in, "to sRGB");
    if (is_srgb(in.desc)) return in;
    image_ops::WorkSpace encode;
    encode.linearise = true;
    return image_ops::from_working(image_ops::to_working(in, image_ops::WorkSpace{}), encode, 1.0f, is_float(in), true);
}

} // namespace af
