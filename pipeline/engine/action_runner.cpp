#include "engine/action_runner.hpp"

#include "assetforge/mapped_file.hpp"
#include "base/output_template.hpp"
#include "load/config.hpp"

#include <unistd.h>

#include <algorithm>
#include <set>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

bool was_cancelled(const ActionRun& run) { return run.cancelled && run.cancelled(); }

// One step over the items it is given: texture steps get textures (the
// reader parses bytes first).
std::vector<steps::Item> run_step(const ActionRun& run, const load::StepUse& s, std::vector<steps::Item> in_items,
                                  const std::string& ext, const std::string& label, ActionTrail& trail) {
    report::TraceLog& trace = run.trace;
    trail.step = s.name;
    if (was_cancelled(run)) throw Cancelled{};
    if (s.def->takes_texture)
        for (auto& it : in_items)
            if (!it.is_texture()) {
                if (!run.steps.reader) throw std::runtime_error("no texture reader is available");
                const int64_t ts = trace.now_us();
                const int64_t n = int64_t(it.bytes ? it.bytes->size() : 0);
                it = run.steps.reader(it, trail.tools);
                if (run.keep_textures && !trail.source) trail.source = it.texture;
                trace.add("parse", run.job.name, label, ts, trace.now_us() - ts, n);
            }
    steps::StepContext ctx{.params = s.params,
                           .base_dir = run.root,
                           .output_ext = ext,
                           .tools = trail.tools,
                           .results = trail.results,
                           .cancelled = run.cancelled,
                           .scratch_dir = run.scratch_dir,
                           .previous_output = run.previous_output,
                           .file_hash = run.file_hash};
    int64_t ts = trace.now_us();
    auto out = s.def->run(ctx, std::move(in_items));
    const int64_t dur = trace.now_us() - ts;
    trace.add(s.name, run.job.name, label, ts, dur);
    if (run.on_step) run.on_step(s.name, double(dur) / 1000);
    return out;
}

// The pictures of a texture's surfaces, read and made one texture.
std::vector<steps::Item> assemble_set(const ActionRun& run, std::vector<steps::Item> members, const std::string& label,
                                      ActionTrail& trail) {
    if (!run.steps.reader || !run.steps.assemble) throw std::runtime_error("no texture reader is available");
    trail.step = "read";
    const int64_t ts = run.trace.now_us();
    for (auto& it : members)
        if (!it.is_texture()) it = run.steps.reader(it, trail.tools);
    trail.step = "assemble";
    std::vector<steps::Item> one;
    one.push_back(run.steps.assemble(std::move(members), run.surface_set));
    if (run.keep_textures && !trail.source) trail.source = one.front().texture;
    run.trace.add("assemble", run.job.name, label, ts, run.trace.now_us() - ts);
    return one;
}

// A file read back through its container: its format and its loss are what the results report. Encode measured
// against its own input, the writer's loss is against what encode made: both are real, so the lower figure is kept
// (docs/cli.md, "What a report says of a texture output"). The HTML page measures the file against the source.
void take_written(const steps::WrittenFile& f, base::StepResults& r) {
    if (!f.back) return;
    if (!f.format.empty() && f.format != r.format) {
        r.format_reason =
            r.format.empty() ? "the container's writer stored it"
                             : r.format_reason + "; the writer stored " + f.format + " (" + r.format + " handed to it)";
        r.format = f.format;
    }
    auto lower = [](std::optional<double>& mine, const std::optional<double>& file) {
        if (mine && file) mine = std::min(*mine, *file);
    };
    lower(r.psnr_rgb, f.psnr_rgb);
    lower(r.psnr_rgb_alpha_weighted, f.psnr_rgb_alpha_weighted);
}

// The bytes of one item: a texture through its container's writer, other items as they are.
void item_bytes(const ActionRun& run, steps::Item& it, ActionOutput& w, const std::string& label, ActionTrail& trail) {
    report::TraceLog& trace = run.trace;
    if (it.is_texture()) {
        if (!run.steps.writer) throw std::runtime_error("no texture writer is available");
        const bool pictured = run.keep_textures && !trail.result;
        if (pictured) trail.result = it.texture;
        const int64_t ts = trace.now_us();
        steps::WrittenFile written;
        w.encoded = run.steps.writer(it, w.abs, trail.tools, written);
        if (written.back && pictured) trail.result = written.back; // the report's pictures and figures: the file's
        take_written(written, trail.results);
        std::vector<std::string>& lost = written.warnings;
        // An export for editing (keep_edits) is a copy the user edits, not what the build ships: what its format
        // cannot hold (HDR in a PNG) is noted with the action, and counted where an edit of it loses it (encode's
        // `match` against the original), so an unedited set passes --warnings-as-errors.
        for (auto& l : lost) {
            if (!run.job.keep_edits)
                trail.results.warnings.push_back(std::move(l));
            else
                trail.results.note += (trail.results.note.empty() ? "" : "; ") + ("edit copy: " + l);
        }
        // "encode dds", "encode png": the container's writer (the step named encode is a codec)
        std::string container = it.container;
        if (container.empty()) {
            container = fs::path(w.abs).extension().string();
            if (!container.empty()) container.erase(0, 1);
        }
        trace.add("encode " + container, run.job.name, label, ts, trace.now_us() - ts, int64_t(w.encoded.size()));
    } else if (it.bytes) {
        w.item_bytes = it.bytes;
    } else if (it.owns_file) {
        // A file the step wrote whole (a zip): mapped, then removed at once, so no build leaves it behind; the
        // mapping holds its pages until the commit has written them out.
        auto mapped = std::make_shared<const sdk::MappedFile>(it.file);
        ::unlink(it.file.c_str());
        w.held = {mapped->data(), size_t(mapped->size())};
        w.owner = std::move(mapped);
    } else {
        throw std::runtime_error("step produced an empty item");
    }
}

// Where each item goes (the output template) and its bytes and hash.
std::vector<ActionOutput> place_items(const ActionRun& run, std::vector<steps::Item>& items,
                                      const std::string& input_name, const std::string& label, ActionTrail& trail) {
    const load::Job& job = run.job;
    std::vector<ActionOutput> outputs;
    std::set<std::string> mine;
    for (auto& it : items) {
        auto values = base::template_values(it.name, it.meta, job.name);
        // Plugin stages name the items they emit ("2_0_1.bin"); these keep the
        // action's own input reachable: {input_dir}/{input_stem}/….
        if (!job.is_gather()) {
            auto in = base::template_values(input_name, {}, job.name);
            for (const char* k : {"dir", "stem", "name", "ext"}) values.emplace(std::string("input_") + k, in[k]);
        }
        ActionOutput& w = outputs.emplace_back();
        w.abs = base::resolve_output(run.tpl, values, run.root).native();
        w.rel = run.paths.rel_of(w.abs);
        if (!mine.insert(w.abs).second)
            throw std::runtime_error(
                "two items map to the same output " + w.rel +
                "; add {surface} (decode), {mip}/{face}/{layer} or similar to the output template");
        item_bytes(run, it, w, label, trail);
        const int64_t hts = run.trace.now_us();
        w.hash = hash_bytes(w.data());
        run.trace.add("hash", job.name, label, hts, run.trace.now_us() - hts, int64_t(w.data().size()));
    }
    return outputs;
}

} // namespace

std::vector<ActionOutput> run_action(const ActionRun& run, std::vector<steps::Item> items,
                                     const std::string& input_name, const std::string& label, ActionTrail& trail) {
    const load::Job& job = run.job;
    // What plugins say from here on belongs to this action, also when it fails.
    const std::shared_ptr<void> notes =
        run.steps.keep_plugin_notes ? run.steps.keep_plugin_notes(trail.results, input_name) : nullptr;
    std::string ext = fs::path(job.output).extension().string();
    if (!ext.empty()) ext = ext.substr(1);
    if (!run.surface_set.empty()) items = assemble_set(run, std::move(items), label, trail);
    for (const auto& s : job.steps) {
        std::vector<steps::Item> next;
        for (auto& it : items) {
            // Not `{std::move(it)}`: an initializer list copies, and its own
            // element (the input's bytes) would live through the step.
            std::vector<steps::Item> one;
            one.push_back(std::move(it));
            auto out = run_step(run, s, std::move(one), ext, label, trail);
            for (auto& o : out) next.push_back(std::move(o));
        }
        items = std::move(next);
    }
    if (job.is_gather()) items = run_step(run, job.gather, std::move(items), ext, label, trail);
    trail.step = "write";
    if (was_cancelled(run)) throw Cancelled{};
    return place_items(run, items, input_name, label, trail);
}

} // namespace af::engine
