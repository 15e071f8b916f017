// What `assetforge steps` reports: every step of a table, its parameters and
// who provides it, as JSON. The terminal and Markdown forms are made from it,
// so the three never disagree.
#pragma once

#include "steps/step.hpp"

#include <nlohmann/json.hpp>

namespace af::engine {

// An array: built-in steps first, then each plugin's stages, by name. Each
// step: name, description, kind (map/gather), version, plugin (null: built
// in) and plugin_file, takes (texture/any), params (name, type, doc and,
// when they apply, default, choices, also, min, max, min_exclusive,
// ignore_case, required), other_params (null: none; "any"; or the option
// names the loaded containers or codecs declare), options_by_owner (those
// options per container or codec: [{owner, options: [params as above]}]),
// meta_keys (null: undeclared).
nlohmann::json describe_steps(const StepTable& table);

} // namespace af::engine
