// `format: auto` for XTF: what the original Xbox wants for a texture that
// names no format. Compressed and paletted textures keep their format (a
// re-save must not re-encode); everything else is compressed by its alpha:
// DXT1 when opaque, DXT1 + ONEBITALPHA for cut-outs, DXT5 for smooth alpha.
#pragma once

#include "assetforge/alpha_kind.hpp"
#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>

namespace af::xtf {

// Over mip 0 of every frame and face, by the SDK's one alpha rule (the
// pipeline's `auto` asks the same).
AlphaKind alpha_content(const af_host* host, const Texture& t);

struct AutoFormat {
    int32_t vtf_format; // never VTF_DXT1_ONEBITALPHA
    bool one_bit_alpha; // cut-out content going to DXT1
    const char* why;    // for messages: "opaque", "cut-out alpha", …
};

// Throws af::sdk::Error (unsupported) when the choice is DXT and no codec can
// encode it: silently writing something else would hide a missing plugin.
AutoFormat auto_xtf_format(const af_host* host, const Texture& t);

// The choice by content alone (float data, then alpha), whatever the input's
// format: for VTF, which cannot keep P8.
AutoFormat auto_by_content(const af_host* host, const Texture& t);

} // namespace af::xtf
