// Read-only memory map of a whole file; the implementation is the SDK's.
#pragma once

#include "assetforge/mapped_file.hpp"

namespace af {

using sdk::MappedFile;

} // namespace af
