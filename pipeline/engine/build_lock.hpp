// One build at a time per state: an exclusive flock on <state dir>/lock,
// held for the whole build. A second build waits (saying which process it
// waits for); `status` never takes it.
#pragma once

#include <filesystem>
#include <functional>
#include <string>

namespace af::engine {

class BuildLock {
  public:
    // Blocks until the lock is ours. `waiting` is called once, with a
    // message, if another process holds it; `cancelled` is polled while
    // waiting (throws BuildLock::Cancelled when it returns true).
    // Throws std::runtime_error when the lock file cannot be created.
    BuildLock(const std::filesystem::path& state_dir, const std::function<void(const std::string&)>& waiting,
              const std::function<bool()>& cancelled);
    ~BuildLock();
    BuildLock(const BuildLock&) = delete;
    BuildLock& operator=(const BuildLock&) = delete;

    struct Cancelled {};

  private:
    int fd_ = -1;
};

} // namespace af::engine
