// Image: the SDK's run-time typed picture (assetforge/image.hpp). The host
// and plugins share one type and one set of byte ⇄ float rules; these names
// keep the host's code spelled as before.
#pragma once

#include "assetforge/image.hpp"

namespace af {

using sdk::Image;
using sdk::PixelType;
using sdk::to_float;
using sdk::to_rgba8;
using sdk::view_of;

} // namespace af
