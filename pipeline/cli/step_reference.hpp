// The parameter reference of `assetforge steps`, made from describe_steps()
// JSON: what values a parameter takes, in words, and the Markdown section of
// docs/steps.md (scripts/update-step-docs.sh puts it there).
#pragma once

#include <nlohmann/json.hpp>

#include <string>

namespace af::cli {

// "auto, rgba8, rgba32f", "0..32", "(0, 64]", "" for free text. `code`
// quotes each choice as Markdown code.
std::string valid_values(const nlohmann::json& param, bool code);

std::string step_reference_markdown(const nlohmann::json& steps);

} // namespace af::cli
