// binary16 conversions moved to the SDK so plugins get them without the core.
#pragma once

#include "assetforge/half.hpp"
