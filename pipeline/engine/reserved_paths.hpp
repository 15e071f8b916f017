// Files no build writes, whatever its flags: the pipeline file, its
// includes and everything in the state folder. An output template, a cache
// entry or `--overwrite-edited` that would replace them is refused, as are
// `--report`/`--trace` files that would replace them, replace a source or be
// read back as an input, and a `--state-dir` whose folder holds inputs.
#pragma once

#include "engine/plan.hpp"
#include "load/config.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace af::engine {

struct ReservedPaths {
    std::vector<std::string> files; // absolute, normal: the pipeline file and its includes
    std::string state_dir;          // absolute, normal, without a trailing slash

    static ReservedPaths of(const load::Pipeline& p, const std::filesystem::path& state_dir);
    // Why `abs` (absolute, normal) may never be written by a build; "" when it may.
    std::string why(const std::string& abs) const;
};

// Is `name` (a file name in the state folder) one of the state's own files?
bool is_state_file(std::string_view name);

// The problems of writing `file` (`flag`: "--report", "--trace") beside this
// build: one message each, empty when it may be written.
std::vector<std::string> side_file_problems(const std::string& flag, const std::filesystem::path& file,
                                            const ReservedPaths& reserved, const std::vector<PlanJob>& jobs,
                                            const Plan& plan, const PlanState& state,
                                            const std::filesystem::path& root);

} // namespace af::engine
