#include "texture/edit_format.hpp"

#include "assetforge/formats.hpp"

namespace af::texture {

std::string_view edit_extension(uint32_t format) {
    const FormatInfo* f = format_info(format);
    return f && (f->flags & fmtflag::hdr) ? "exr" : "png";
}

} // namespace af::texture
