// The step table: every YAML step name maps to a StepDef, built in
// (engine_steps.cpp, texture_steps.cpp) or adapted from a plugin af_stage.
#pragma once

#include "assetforge/picture.hpp"
#include "base/step_results.hpp"
#include "steps/item.hpp"
#include "steps/param_spec.hpp"

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

namespace af::steps {

// Everything a step may touch while running one action.
struct StepContext {
    const Params& params;
    std::filesystem::path base_dir;  // where relative paths in parameters resolve
    std::string output_ext;          // extension of the job's output template (no dot), for `write`
    std::vector<std::string>& tools; // plugin identities used ("dds@1.0#hash"), part of the up-to-date check
    base::StepResults& results;      // what the action's steps report (format, PSNR, verdicts, warnings)
    std::function<bool()> cancelled;
    // Gathers: a folder on the outputs' disk (the state folder) for a file the step writes whole before the build
    // takes it over; the job's output as the last build left it, unedited since (empty: none), which the step may
    // update rather than make afresh; and a regular file's content hash through the build's stat cache (the file is
    // read only when it changed since it was last hashed), nothing when there is no such file.
    std::filesystem::path scratch_dir{}, previous_output{};
    std::function<std::optional<Hash128>(const std::filesystem::path&)> file_hash{};
};

enum class StepKind { Map, Gather };

// What flows through one file's steps as the memory estimate follows it
// (engine/action_memory.hpp): raw bytes, or a texture of so many texels.
struct MemoryFlow {
    double bytes = 0; // raw bytes (the file, or what byte stages made of it)
    bool texture = false;
    double top = 0, texels = 0; // top-level texels; all texels (mips included)
    double width = 0, height = 0;
    bool wide = true; // 16-bit or float channels (or not known)
    double count = 0; // a gather's: how many items it takes
    // Reads the bytes into a texture of what the file's header declares (or a bound by its size) when they are
    // not one yet, at the reader's cost; set by the estimate.
    std::function<void()> as_texture;
};

// Peak bytes per texel of a texture a step holds: 8-bit channels, or wider ones.
struct TexelCost {
    double narrow, wide;
    double of(const MemoryFlow& f, double texels) const { return (f.wide ? wide : narrow) * texels; }
};

// A step's working set at its peak, beyond the input file, for what flows in;
// it updates `flow` to what comes out. For a gather step, `flow.bytes` is
// what every file's items hold together. Each figure is fitted to peaks
// measured by bench/memory_peaks.py (docs/memory.md has them).
using MemoryCost = std::function<double(const Params& params, MemoryFlow& flow)>;

struct StepDef {
    std::string name{}, description{};
    uint32_t version = 1; // bump when output bytes change
    StepKind kind = StepKind::Map;
    std::vector<ParamSpec> params{};
    std::string provider = "engine"; // identity mixed into action keys
    // The plugin whose af_stage this is, and its file: empty for built-in
    // steps. Listings and name clashes name them.
    std::string plugin{};
    std::filesystem::path plugin_file{};
    bool takes_texture = false; // byte items are read (probed) into textures first
    // A gather that reads its inputs' files itself, one at a time (Item::file): a job that gathers files straight
    // from disk or from another job holds none of them in memory, and the estimate counts none.
    bool reads_files = false;
    // Map: called once per item; Gather: once with every item of the job.
    std::function<std::vector<Item>(StepContext&, std::vector<Item>)> run{};
    // Parameters beyond `params` that the step hands on to a container or
    // codec (read, encode, write), given its own normalised parameters and the
    // extension of the job's output template ("" when a placeholder names it).
    // Unset: no others.
    std::function<PassThrough(const Params& own, const std::string& output_ext)> pass_through{};
    // Metadata keys the step may set on items (what output placeholders can
    // name). nullopt: undeclared (a plugin stage built against plugin API
    // < 1.2), so output templates of jobs using the step go unchecked.
    std::optional<std::vector<std::string>> meta_keys{};
    // Each item comes out as one item under its own name, so a job's output
    // paths are known before it runs (the plan checks them).
    bool keeps_names = false;
    // Unset: the estimate's rule for a step it knows nothing of (a plugin's).
    MemoryCost memory{};
};

// Turns a byte item into a texture item (the implicit `read`), recording
// the plugin it used in `tools`.
using TextureReader = std::function<Item(const Item&, std::vector<std::string>& tools)>;
// What the implicit `write` learnt of the file it made, besides its bytes.
struct WrittenFile {
    // What the container discarded (one that picks its own format: XTF's RGB565 keeps no alpha); the action's
    // results carry it into reports.
    std::vector<std::string> warnings;
    // Set when the file was read back through its container, because its writer may store other texels than it
    // was handed (a third-party container, or one that picks its own format): what the file holds, its format's
    // name, and the PSNR of its top level against the texture handed to the writer (99: identical; unset when the
    // sizes differ), so reports describe the file, not what was handed to the writer.
    std::shared_ptr<const Texture> back;
    std::string format;
    std::optional<double> psnr_rgb, psnr_rgb_alpha_weighted;
};
// Encodes a texture item for an output path (the implicit `write`).
using TextureWriter = std::function<std::vector<uint8_t>(const Item&, const std::filesystem::path& out,
                                                         std::vector<std::string>& tools, WrittenFile& written)>;

// What a file's header declares, by the `dims` of the container plugin that
// claims it (API 1.4), for the memory estimate; nothing when no such plugin
// claims the file or it cannot say. `head` is the file's first bytes.
struct DeclaredTexture {
    TextureDesc desc;
    std::string container; // "tga"
};
using DeclaredReader =
    std::function<std::optional<DeclaredTexture>(const std::string& path, std::span<const uint8_t> head)>;

// Two steps with one name: a pipeline could not say which it means, so the
// table refuses the second one rather than letting either win silently.
class StepNameTaken : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class StepTable {
  public:
    // Throws StepNameTaken, naming both sides, when `def.name` is taken.
    void add(StepDef def);
    const StepDef* find(std::string_view name) const;
    // Marks built-in steps that pass each item on under its own name.
    void keeps_names(std::initializer_list<std::string_view> names);
    std::vector<std::string> names() const;

    TextureReader reader;
    TextureWriter writer;
    DeclaredReader declared;
    // The pictures of one multi-surface texture (`members`: read, in any
    // order, each named as base/surface_names.hpp says) as one texture item
    // named `set`; throws naming what is missing. Unset without the plugin host.
    std::function<Item(std::vector<Item> members, const std::string& set)> assemble;
    // Opens, on the calling thread, the keeping of what plugins say during one
    // action (log lines, read warnings; those of calls given no file name
    // `input`); destroying what it returns moves them into `results`
    // (warnings, plugin_log). Unset without the plugin host.
    std::function<std::shared_ptr<void>(base::StepResults& results, const std::string& input)> keep_plugin_notes;
    // Mip 0 as a picture, for the HTML report's pictures and PSNR (unset
    // without the plugin host: then the report has none).
    std::function<Texture(const Texture&)> top_image;
    // Metadata keys `reader` may set (from the containers); nullopt: undeclared.
    std::optional<std::vector<std::string>> reader_meta_keys;

  private:
    std::map<std::string, std::unique_ptr<StepDef>, std::less<>> steps_;
};

// Steps that need no plugin host: copy, zip.
void add_engine_steps(StepTable& table);

} // namespace af::steps
