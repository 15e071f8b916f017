// The one naming of a multi-surface texture's editing copies: one picture per
// surface, `<stem>.<surface>.<ext>` beside where the texture's own picture
// would be (docs/edit-formats.md, "Textures of several surfaces"):
//
//   sky.face3.png            face 3 of a cubemap
//   arr.layer2.png           layer 2 of an array (anim.frame2.png: frame 2 of an XTF/VTF animation)
//   arr.layer2.face3.png     face 3 of layer 2 of a cubemap array
//   vol.slice4.exr           depth slice 4 of a volume texture
//   rock.mip2.png            mip level 2 of a texture whose levels are edited
//   sky.face3.mip1.png       level 1 of face 3 (the level always last)
//
// The export (`decode`, with texture::surface_part) names pictures so; a job whose steps take a texture
// builds every file so named, in one folder, under one stem and extension, as
// one action on `<stem>.<ext>` (sky.png), which is what its outputs, its
// record and its messages are named by.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace af::base {

struct SurfaceName {
    std::string set;     // the set's name: the member's name without its surface part ("env/sky.png")
    std::string surface; // ".face3", ".layer2.face3", ".face3.mip1", … as the name spells it
    bool frame = false;  // layers named "frame"
    std::optional<uint32_t> layer, face, slice;
    std::optional<uint32_t> mip; // named when the levels are pictures of their own (mips as authored)
};

// The surface a name stands for, or nothing when the name is not a member's
// (no surface part, a number with leading zeros or above 65535, slices with layers or faces).
std::optional<SurfaceName> surface_name(std::string_view name);

} // namespace af::base
