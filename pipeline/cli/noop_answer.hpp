// `build` answered from its no-op record (engine/build/noop_record.hpp)
// before any plugin, pipeline or state is loaded; and the record kept after
// each clean build.
#pragma once

#include "base/build_options.hpp"
#include "base/build_result.hpp"
#include "load/config.hpp"

#include <optional>

namespace af::host {
class PluginRegistry;
}

namespace af::cli {

// First thing in main: this process's start and the record's key.
void note_command_line(int argc, char** argv);

// The exit code when the record shows a `build` with nothing to do; nullopt:
// run the build. ASSETFORGE_VERIFY_NOOP=1 runs it anyway and checks that
// it did nothing (tests).
std::optional<int> answer_from_noop_record();

// Around the build: no record while it runs (an interrupted build leaves none),
// then one if it ended cleanly. Returns the exit code to use.
void forget_noop_record();
int record_noop(const load::Pipeline& p, const base::BuildOptions& opt, const base::BuildSummary& s,
                const host::PluginRegistry& reg, int code);

} // namespace af::cli
