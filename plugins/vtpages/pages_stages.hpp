// Pipeline stages: pages.extract (1 file → N items), pages.build (N items →
// 1 file), pages.repack (1 file + a replacement directory → 1 file).
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::vtpages {

af_status stage_extract(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status stage_build(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status stage_repack(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);

} // namespace af::vtpages
