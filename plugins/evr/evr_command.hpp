// The `assetforge evr …` command: list, extract and verify a package set.
#pragma once

#include "assetforge/command_args.hpp"

#include <string>
#include <vector>

namespace af::evr {

// io.host may be null: frames are then decoded serially.
using sdk::CommandArgs;
using sdk::CommandIo;

// argv[0] is the subcommand. Returns 0 ok, 1 the set failed a check, 2 usage.
int run_evr_command(const CommandIo& io, const std::vector<std::string>& argv);

} // namespace af::evr
