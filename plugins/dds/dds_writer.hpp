// Texture → DDS: a legacy header when the format has one (as texconv does),
// DX10 otherwise, with pitch/linear size and flags that strict loaders accept.
#pragma once

#include "dds_format.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <vector>

namespace af::dds {

enum class Dx10Mode { Auto, Always, Never };

// What the reader recorded about the header of the file a texture came
// from (metadata "dds_header"): a re-export keeps the game's header kind.
enum class HeaderKind { Unknown, Legacy, Dx10 };

struct WriteOptions {
    Dx10Mode dx10 = Dx10Mode::Auto;
    HeaderKind original = HeaderKind::Unknown; // dx10=auto follows it where the format allows
};

// The "dds_header" metadata value ("legacy" / "dx10") as a HeaderKind.
HeaderKind header_kind(const char* meta_value);

// Option "dx10" = auto | always | never.
WriteOptions write_options(const af_options* options);

// The header for `desc`; throws af::sdk::Error when DDS cannot hold it in the
// requested header style (e.g. dx10=never for BC7, dx10=always for B8G8R8).
RawHeader make_header(const TextureDesc& desc, const WriteOptions& opt);

// The container's write (plugin.cpp registers it): the header, then the
// surfaces as they are (already in DDS order: layer → face → mip).
af_status write_container(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                          af_error* error);

} // namespace af::dds
