// The parameters of one use of a step, as written in the pipeline, checked
// and normalised: the step's own parameters against their specs (defaults
// filled in, required ones present), the rest against the options of the
// containers or codecs the step hands them to.
#pragma once

#include "base/config_error.hpp"
#include "steps/step.hpp"

#include <string>
#include <vector>

namespace af::steps {

struct GivenParam {
    std::string key, value; // value: ${vars} expanded, a YAML list joined with ','
    base::SourcePos key_pos, value_pos;
};

// Throws ConfigError at the offending key or value, with the valid names or
// values and the closest one.
Params step_params(const StepDef& def, const base::SourcePos& step_pos, const std::vector<GivenParam>& given,
                   const std::string& output_ext);

} // namespace af::steps
