// sRGB ⇄ linear conversion of whole images.
#include "core/image_ops_internal.hpp"

namespace af {

Texture convert_srgb_to_linear(const Texture& in) {
    image_ops::check_image(in, "to linear");
    if (!in.srgb) return in;
    image_ops::WorkSpace decode;
    decode.linearise = true;
    return image_ops::from_working(image_ops::to_working(in, decode), image_ops::WorkSpace{}, 1.0f, in.type, false);
}

Texture convert_linear_to_srgb(const Texture& in) {
    image_ops::check_image(in, "to sRGB");
    if (in.srgb) return in;
    image_ops::WorkSpace encode;
    encode.linearise = true;
    return image_ops::from_working(image_ops::to_working(in, image_ops::WorkSpace{}), encode, 1.0f, in.type, true);
}

} // namespace af
