// The evr.* pipeline stages: a package set's files as items (evr.extract),
// a repacked or new set as items (evr.replace, evr.build), and a check of a
// written set (evr.verify). Every file a stage reads besides its items is
// named by a file or folder parameter, so the host keys actions on it.
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::evr {

// The stages' run functions (plugin.cpp declares the stages and their parameters).
af_status run_extract(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status run_replace(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status run_build(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
af_status run_verify(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);

} // namespace af::evr
