// Which placeholders a job's output template may use: {dir} {stem} {ext}
// {name} {path} {job}; {input_dir} {input_stem} {input_name} {input_ext}
// unless the job gathers; and the metadata keys its steps declare (the
// implicit read before a texture step counts as a step).
#pragma once

#include "load/config.hpp"

#include <optional>
#include <string>
#include <vector>

namespace af::load {

// nullopt when a step of the job declares nothing (a plugin built against
// plugin API < 1.2): then any placeholder may turn out to be set.
std::optional<std::vector<std::string>> job_placeholders(const Job& job, const steps::StepTable& steps);

// Throws ConfigError at the job's output when its template names a
// placeholder none of the job's steps can fill.
void check_output_placeholders(const Job& job, const steps::StepTable& steps);

} // namespace af::load
