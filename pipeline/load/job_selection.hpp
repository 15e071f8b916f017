// `assetforge build --job NAME`: narrows a pipeline to the named jobs and
// every job they take inputs from or wait for (`from`, `needs`), transitively.
#pragma once

#include "load/config.hpp"

#include <string>
#include <vector>

namespace af::load {

// Keeps the dependency order. Throws std::invalid_argument naming an unknown
// job with the valid names ("did you mean …"). An empty list keeps every job.
void select_jobs(Pipeline& p, const std::vector<std::string>& names);

} // namespace af::load
