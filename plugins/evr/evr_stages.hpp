// The evr.* pipeline stages: a package set's files as items (evr.extract),
// a repacked or new set as items (evr.replace, evr.build), and a check of a
// written set (evr.verify). Every file a stage reads besides its items is
// named by a file or folder parameter, so the host keys actions on it.
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::evr {

const af_stage* extract_stage();
const af_stage* replace_stage();
const af_stage* build_stage();
const af_stage* verify_stage();

} // namespace af::evr
