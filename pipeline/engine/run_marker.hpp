// A build in progress leaves `<state dir>/running` (holding its pid) until it
// returns. Finding the file at start, with no live process of that pid, means
// the last build was killed: its temporaries (".af-tmp-…", never under an
// output's name, never taken as inputs) are still lying in the output folders,
// and this build sweeps them once it has finished.
#pragma once

#include <filesystem>
#include <set>
#include <string_view>

namespace af::engine {

class RunMarker {
  public:
    explicit RunMarker(const std::filesystem::path& state_dir);
    ~RunMarker(); // removes the marker: this build was not killed
    RunMarker(const RunMarker&) = delete;
    RunMarker& operator=(const RunMarker&) = delete;

    // The marker was there and its process is gone.
    bool previous_build_was_killed() const { return previous_killed_; }

  private:
    std::filesystem::path file_;
    bool previous_killed_ = false;
};

// A name AtomicFile gives its temporaries: kTempPrefix and 16 lower-case hex
// digits. Anything else that merely starts with the prefix is a user's file.
bool is_own_temporary(std::string_view name);

// Removes the tool's own temporaries (is_own_temporary) directly in `dirs`
// (not below) that were last written before `before`. Returns how many went.
size_t remove_abandoned_temporaries(const std::set<std::filesystem::path>& dirs,
                                    std::filesystem::file_time_type before);

} // namespace af::engine
