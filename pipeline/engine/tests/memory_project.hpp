// A project that exists only in memory: its pipeline parsed from text, its
// files on a MemoryDisk, its state in an in-memory StateStore, its globs
// answered from the disk's own list. Builds on it touch no real file, so a
// test can check the whole build (plan, scheduler, dirty scan, commit,
// records) on what the disk and the store say.
#pragma once

#include "engine/build/build_services.hpp"
#include "engine/disk.hpp"
#include "engine/state_store.hpp"
#include "test_project.hpp"

#include <memory>
#include <sstream>
#include <string>
#include <vector>

namespace af::engine::test {

// The state "folder" of a memory project: no lock to take, one store kept
// from build to build (as the database on disk would be).
class MemoryStateFolder final : public StateFolder {
  public:
    explicit MemoryStateFolder(Configuration self) : self_(std::move(self)) {}
    bool hold() override {
        ++holds;
        return true;
    }
    bool previous_build_was_killed() const override { return false; }
    std::shared_ptr<StateStore> open() override;

    int holds = 0;

  private:
    Configuration self_;
    std::shared_ptr<StateStore> kept_;
};

class MemoryProject {
  public:
    static constexpr const char* kRoot = "/assetforge-memory-project";
    MemoryProject();

    // A source file under the root (relative path), as a user would put it.
    void put(const std::string& rel, const std::string& text);
    std::optional<std::string> text(const std::string& rel) const { return disk.text(abs(rel)); }
    std::string abs(const std::string& rel) const { return std::string(kRoot) + "/" + rel; }

    // Parses `yaml` and builds it; the output streams' text is in out/err.
    base::BuildSummary build(const std::string& yaml, base::BuildOptions opt = {});

    MemoryDisk disk;
    steps::StepTable steps = png_test_steps();
    MemoryStateFolder state{Configuration{"memory", "pipeline.yaml"}};
    std::vector<std::string> sources; // relative paths put() made
    std::ostringstream out, err;
};

} // namespace af::engine::test
