// Running a pipeline: actions (job × input) are checked against the state
// store, the out-of-date ones run on TBB with outputs of one job flowing file
// by file into the jobs that take them `from` it, and the state is updated.
#pragma once

#include "base/build_options.hpp"
#include "base/build_result.hpp"
#include "load/config.hpp"
#include "steps/step.hpp"

#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <string>
#include <vector>

namespace af::engine {

// Throws std::runtime_error for problems with the state database itself.
base::BuildSummary run_build(const load::Pipeline& p, const steps::StepTable& steps, const base::BuildOptions& opt);

struct CleanSummary {
    size_t removed_files = 0, missing_files = 0, actions = 0;
    std::vector<std::string> refused; // outputs left alone: through a link out of the root, or edited
};
struct CleanOptions {
    std::vector<std::string> jobs; // only these jobs' outputs (empty: all)
    bool orphans = false;          // instead: outputs other configurations of the output folder recorded
    bool overwrite_edited = false; // also remove outputs edited since the build wrote them
};
// Removes every output the state records for this configuration's jobs and
// forgets those actions; edited outputs are kept (and listed in `refused`).
CleanSummary clean_outputs(const load::Pipeline& p, const CleanOptions& options);

std::filesystem::path state_dir(const load::Pipeline& p);
struct Configuration;
// The owner of a build's records: the pipeline file and its variable values.
Configuration configuration(const load::Pipeline& p);

} // namespace af::engine
