// `assetforge info MANIFEST` through the container route: the host hands over
// the manifest's bytes alone, so the report covers the manifest (checks 1-9),
// not the package parts (`evr verify` checks those).
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::evr {

// The "evr-manifest" container's probe and info (plugin.cpp declares the container).
int32_t probe_manifest(const uint8_t* head, uint64_t size, const char* path);
af_status info_manifest(const af_host* host, const af_input* in, const af_options* options, af_info_text* out,
                        af_error* err);

} // namespace af::evr
