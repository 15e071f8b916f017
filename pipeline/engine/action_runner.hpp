// Running one action: its input items through the job's steps to the bytes
// of each output and where each goes. A pure function of the inputs' bytes,
// the normalised steps and the output template: it touches no file system
// (steps that read a file a parameter names do so themselves, and that file
// is part of the action's key), so the same bytes come out on every machine,
// which is what lets a shared cache hand them out.
#pragma once

#include "core/content_hash.hpp"
#include "engine/project_paths.hpp"
#include "report/trace.hpp"
#include "steps/item.hpp"
#include "steps/step.hpp"

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace af::base {
class OutputTemplate;
}
namespace af::load {
struct Job;
}

namespace af::engine {

// Thrown between steps when the build was cancelled.
struct Cancelled {};

struct ActionOutput {
    std::string abs, rel; // where it goes
    Hash128 hash;
    std::vector<uint8_t> encoded;                           // a texture encoded by its container's writer
    std::shared_ptr<const std::vector<uint8_t>> item_bytes; // or the item's own bytes, not copied
    // or bytes held elsewhere (a blob fetched from the remote cache, mapped from a file), alive while `owner` is
    std::shared_ptr<const void> owner;
    std::span<const uint8_t> held;
    std::span<const uint8_t> data() const {
        return item_bytes ? std::span<const uint8_t>(*item_bytes) : owner ? held : std::span<const uint8_t>(encoded);
    }
};

struct ActionRun {
    const load::Job& job;
    const base::OutputTemplate& tpl;
    const steps::StepTable& steps;
    const std::filesystem::path& root; // where relative parameter paths and output templates resolve
    const ProjectPaths& paths;
    report::TraceLog& trace;
    std::function<bool()> cancelled;
    // Told of each step as it ends, with its time (build -v); may be empty.
    std::function<void(const std::string& step, double ms)> on_step = {};
    // The HTML report's pictures: keep the first texture read and the first
    // written in the trail (otherwise each is dropped as soon as a step is done with it).
    bool keep_textures = false;
    // For the gather step (steps::StepContext has the same): the scratch folder, the output as the last build
    // left it, the stat-cached file hash.
    std::filesystem::path scratch_dir{}, previous_output{};
    std::function<std::optional<Hash128>(const std::filesystem::path&)> file_hash{};
    // The action's inputs are the pictures of one texture's surfaces, assembled
    // into one item of this name before the first step.
    std::string surface_set = {};
};

// What the action did besides its outputs: the step it was in (named in an
// error), the plugins it used, the figures its steps reported.
struct ActionTrail {
    std::string step = "read";
    std::vector<std::string> tools;
    base::StepResults results;
    std::shared_ptr<const Texture> source, result; // ActionRun::keep_textures
};

// `input_name`: the action's own input's item name ("" for a gather), which
// `{input_dir}`-style placeholders refer to. Throws on failure (the step is in
// trail.step) and Cancelled.
std::vector<ActionOutput> run_action(const ActionRun& run, std::vector<steps::Item> items,
                                     const std::string& input_name, const std::string& label, ActionTrail& trail);

} // namespace af::engine
