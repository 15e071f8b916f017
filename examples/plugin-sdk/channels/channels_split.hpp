// `channels.split`: one greyscale texture per colour channel of a texture, for
// the packed masks games use (roughness in R, metalness in G, …) that a modder
// edits one at a time.
#pragma once

#include <assetforge/plugin.hpp>

namespace channels {

// The declared parameters; split() takes its defaults from here.
const af::sdk::ParamTable& split_params();

af_status split(const af_host* host, const af_stage_io* io, const af_options* params, af_error* err);

} // namespace channels
