// What a build works through, chosen by whoever starts it: the file system
// its actions read and write, its state folder and records, where it tells
// what happens, the input globs and the shared cache. build_setup.cpp wires
// the real ones (run_build in build.hpp); tests wire memory.
#pragma once

#include "engine/build.hpp"
#include "engine/build/build_inputs.hpp"

#include <functional>
#include <memory>

namespace af::remote {
class RemoteClient;
}

namespace af::report {
class BuildStatus;
}

namespace af::engine {

class Disk;
class StateStore;

// The state folder: its lock, the marker of a running build, and the records.
class StateFolder {
  public:
    virtual ~StateFolder() = default;
    // Holds the folder for this build (waiting for another build to end);
    // false when cancelled while waiting. Not called by a dry run.
    virtual bool hold() = 0;
    // After hold(): the build before this one was killed (its temporaries are swept).
    virtual bool previous_build_was_killed() const = 0;
    // The records, loaded; called once, on a thread of its own while the first globs are walked.
    // Shared: a folder in memory keeps its store from one build to the next.
    virtual std::shared_ptr<StateStore> open() = 0;
};

struct BuildServices {
    Disk& disk;
    StateFolder& state;
    report::BuildStatus& status;
    InputGlob glob;
    // The shared cache, opened once the plan has accepted the build; empty or
    // returning null: none.
    std::function<std::unique_ptr<remote::RemoteClient>()> open_remote = {};
};

base::BuildSummary run_build(const load::Pipeline& p, const steps::StepTable& steps, const base::BuildOptions& opt,
                             BuildServices services);

} // namespace af::engine
