// Whether an image is still exactly what exporting an original for editing
// produced: the top level of `original` as `decode` gives it (8-bit, or
// float written as an EXR or a 16-bit PNG). A re-export that finds its input unedited
// can keep the original's bytes instead of encoding lossy blocks again, so a
// mod changes only the textures the modder touched.
#pragma once

#include "texture/texture_ops.hpp"

namespace af::texture {

// `edited`: the texture read from the editing copy, or assembled from the
// pictures of every surface (each top-level surface is compared); a lone
// picture is compared with layer 0, face 0. False whenever the sizes, surface
// counts or pixel kinds differ.
// `from_set`: `edited` was assembled from surface pictures, so a set of one
// surface is not taken for a lone picture of the first.
// `levels`: the set's levels were pictures too (`name.mip<N>`): every level of
// every surface is compared, and the level counts must agree.
bool unedited_export(Ops& ops, const Texture& edited, const Texture& original, bool from_set = false,
                     bool levels = false);

} // namespace af::texture
