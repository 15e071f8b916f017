// The edit format a texture is exported to when the user asks for the
// automatic choice (the `{edit_ext}` output placeholder; docs/edit-formats.md).
#pragma once

#include <cstdint>
#include <string_view>

namespace af::texture {

// "exr" for a format that stores HDR (float formats and BC6H: values may
// exceed 1, which PNG clips), "png" for every other. By the format, not the
// values: an HDR texture's edit copy stays an EXR whatever one export held.
std::string_view edit_extension(uint32_t format);

} // namespace af::texture
