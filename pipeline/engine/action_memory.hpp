// The memory an action holds at its peak, estimated before it reads anything
// big, so --memory-budget bounds a build whatever sizes its inputs declare.
// Compressed containers are judged by what their header declares, not by
// their size: a 69-byte PNG can declare 20000x20000 16-bit RGBA.
#pragma once

#include "load/config.hpp"
#include "steps/step.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace af::engine {

struct ActionFile {
    std::string name; // as the user knows it, for messages
    std::string path; // to open
};

struct MemoryEstimate {
    uint64_t bytes = 0;
    std::string largest; // the file that costs most and what it declares: "src/a.png (20000x20000 16-bit RGBA PNG)"
};

// Input files (read whole), plus the working set of the job's steps on the
// texels each file declares (PNG and DDS headers; a plugin's format through
// `plugin_declared`, its container's dims; any other file is bounded by its
// size), plus a fixed amount per action. Reads only file headers.
MemoryEstimate estimate_action_memory(const load::Job& job, const std::vector<ActionFile>& files,
                                      const steps::DeclaredReader& plugin_declared = {});

// The estimate, or std::runtime_error naming the file, what it declares and
// the budget when the estimate exceeds the whole budget (such an action
// could never run within it).
uint64_t action_memory_within(const load::Job& job, const std::vector<ActionFile>& files, uint64_t budget,
                              const steps::DeclaredReader& plugin_declared = {});

} // namespace af::engine
