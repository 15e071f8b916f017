// A throw-away project directory and a step table whose texture reader and
// writer use the core PNG code directly, so engine tests need no plugin host.
#pragma once

#include "engine/build.hpp"
#include "load/config.hpp"
#include "steps/step.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace af::engine::test {

class TestProject {
  public:
    TestProject();
    ~TestProject();
    const std::filesystem::path& root() const { return root_; }
    std::filesystem::path path(const std::string& rel) const { return root_ / rel; }

    void write(const std::string& rel, const std::string& text) const;
    void write_png(const std::string& rel, uint32_t w, uint32_t h, uint8_t seed) const;
    std::string read(const std::string& rel) const;
    bool exists(const std::string& rel) const { return std::filesystem::exists(path(rel)); }

    // Writes pipeline.yaml and builds; the result's actions tell what ran.
    base::BuildSummary build(const std::string& yaml, base::BuildOptions opt = {}, const load::Defines& defines = {});
    const steps::StepTable& steps() const { return steps_; }

  private:
    std::filesystem::path root_;
    steps::StepTable steps_;
};

steps::StepTable png_test_steps();

// Sorted "job:input" of actions with the given status.
std::vector<std::string> with_status(const base::BuildSummary& s, const std::string& status);

} // namespace af::engine::test
