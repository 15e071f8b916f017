// Outputs appear complete or not at all. The implementation is the SDK's, so
// the host and plugin commands leave the same recognisable temporaries.
#pragma once

#include "assetforge/atomic_file.hpp"

namespace af {

using sdk::AtomicFile;
using sdk::AtomicFileOptions;
using sdk::kTempPrefix;
using sdk::write_file_atomic;

} // namespace af
