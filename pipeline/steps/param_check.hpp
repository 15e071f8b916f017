// Checking one parameter value against its ParamSpec at load time.
#pragma once

#include "steps/param_spec.hpp"

#include <string>
#include <string_view>

namespace af::steps {

// The value as steps and plugins receive it: booleans become "true"/"false",
// integers decimal, choices matched in any case their declared spelling;
// everything else stays as written. Throws
// std::invalid_argument with "'v' is not a valid <what>: expected …"
// (with the choices and "did you mean" for Enum and List values).
std::string check_param_value(const ParamSpec& spec, const std::string& value, std::string_view what);

// "an integer in [0, 32]", "true or false", "one of a, b" …: what `spec` accepts.
std::string describe_param(const ParamSpec& spec);

} // namespace af::steps
