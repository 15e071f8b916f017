// The `assetforge evr …` command: list, extract and verify a package set.
#pragma once

#include "assetforge/plugin_abi.h"

#include <ostream>
#include <string>
#include <vector>

namespace af::evr {

struct CommandIo {
    const af_host* host; // may be null: frames are then decoded serially
    std::ostream& out;
    std::ostream& err;
};

// argv[0] is the subcommand. Returns 0 ok, 1 the set failed a check, 2 usage.
int run_evr_command(const CommandIo& io, const std::vector<std::string>& argv);

} // namespace af::evr
