// The af_container table for DDS (read, write, info), kept out of plugin.cpp
// so tests can call it through the C ABI without loading the module.
#pragma once

#include "assetforge/plugin_abi.h"

namespace af::dds {

const af_container* container();

} // namespace af::dds
