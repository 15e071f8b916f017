// pipeline.yaml → Pipeline: vars expanded, includes merged, presets inlined,
// every step checked against the step table and its parameters normalised.
#pragma once

#include "base/config_error.hpp"
#include "steps/item.hpp"
#include "steps/step.hpp"

#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace af::load {

struct StepUse {
    std::string name;
    steps::Params params; // normalised: defaults filled in, keys sorted
    base::SourcePos pos;
    const steps::StepDef* def = nullptr;
};

struct Job {
    std::string name;
    base::SourcePos pos;
    std::vector<std::string> patterns; // globs relative to the project root
    std::vector<std::string> excludes;
    std::vector<std::string> from;  // jobs whose outputs are this job's inputs, file by file
    std::vector<std::string> needs; // jobs that must finish before `patterns` are expanded
    std::vector<StepUse> steps;     // map steps
    StepUse gather;                 // name empty unless N → 1
    std::string output;             // template, vars expanded
    base::SourcePos output_pos;
    bool keep_edits = false;          // write outputs that are missing; never replace an existing one
    bool follow_links = false;        // read inputs through links that lead out of the input root
    bool allow_empty = false;         // an input pattern may match nothing
    std::filesystem::path input_root; // links must resolve inside (absolute; empty: see GlobOptions)
    // Folders an input pattern starts with that came from -D (absolute once loaded): a link there is followed,
    // as the user named it (GlobOptions::named_folders).
    std::vector<std::filesystem::path> named_folders;

    bool is_gather() const { return !gather.name.empty(); }
    // A gather of files as they are (no step before it) whose step reads each file itself: the build hands it
    // the files unread (steps::Item::file).
    bool gathers_files() const { return is_gather() && steps.empty() && gather.def && gather.def->reads_files; }
};

// Each environment variable `${env:NAME}` read while loading, and the value it had (nullopt: unset, the
// default was used).
using EnvReads = std::map<std::string, std::optional<std::string>>;

struct Pipeline {
    std::filesystem::path file;        // the pipeline YAML
    std::filesystem::path root;        // its directory: inputs, outputs and state are relative to it
    std::filesystem::path output_root; // outputs must stay inside (default: root)
    std::map<std::string, std::string> vars;
    // What the file made of the environment: a build answered without loading it (the no-op record) must
    // see the same values.
    EnvReads env_read;
    std::vector<Job> jobs; // in dependency order
    // Jobs `--job` left out: they do not run, but the plan still counts
    // their outputs (a selected job may not read them undeclared).
    std::vector<Job> unselected;
    std::vector<std::filesystem::path> includes; // every file `include:` read (absolute, normal)
    std::filesystem::path state_dir;             // where the build state lives (default: <output_root>/.assetforge)
    std::string remote_cache;                    // `remote_cache:` URL of a shared Bazel HTTP cache ("" = none)
    bool remote_cache_required = false;          // `remote_cache_required: true`: a cache failure fails the build
    double action_timeout = 0;                   // `action_timeout:` seconds one plugin call may take (0 = none)

    const Job* job(std::string_view name) const;
};

using Defines = std::vector<std::pair<std::string, std::string>>;
// The environment variables `${env:NAME}` may read. A pipeline file is code that whoever can change it controls,
// and the environment holds secrets (CI tokens): it reads only the names the user lists (--allow-env,
// ASSETFORGE_ALLOW_ENV); any other name is a ConfigError.
using EnvAllowList = std::set<std::string>;
// Folders outside the project (the pipeline file's folder) that the pipeline may read from and write under
// (--allow-path; absolute). For the same reason as EnvAllowList: a mod's pipeline.yaml could otherwise package
// ~/.netrc into the mod's zip or write a ~/.gitconfig. Everything the pipeline names (inputs, includes, files
// and folders step parameters read, input_root, output_root) must resolve, links and `..` followed, inside the
// project, inside one of these, or inside a folder the user gave with -D; anything else is a ConfigError.
using PathAllowList = std::vector<std::filesystem::path>;

// Throws ConfigError. `defines_dir` (absolute; the command line's: the user's current folder) is where a relative
// -D value that starts a path resolves: `output_root: "${out}"`, `inputs: "${src}/**/*.png"`, `output:`,
// `input_root:` and file or folder step parameters. Paths the file itself holds, its `vars:` defaults included,
// stay relative to the pipeline's folder, as does every -D path when `defines_dir` is empty.
Pipeline load_pipeline(const std::filesystem::path& file, const Defines& defines, const steps::StepTable& steps,
                       const EnvAllowList& allowed_env = {}, const PathAllowList& allowed_paths = {},
                       const std::filesystem::path& defines_dir = {});
Pipeline parse_pipeline(const std::string& yaml_text, const std::filesystem::path& file, const Defines& defines,
                        const steps::StepTable& steps, const EnvAllowList& allowed_env = {},
                        const PathAllowList& allowed_paths = {}, const std::filesystem::path& defines_dir = {});

// "${name}" and "${env:NAME}" ("${env:NAME:-default}") in `text`; "$$" is a literal "$".
// `referenced` (if given) collects the names looked up; `env_read` the environment variables read.
std::string expand_vars(const std::string& text, const std::map<std::string, std::string>& vars,
                        const base::SourcePos& pos, const EnvAllowList& allowed_env = {},
                        std::set<std::string>* referenced = nullptr, EnvReads* env_read = nullptr);

// The names in a list separated by commas or white space (ASSETFORGE_ALLOW_ENV="CI_MODE, GAME_DIR").
EnvAllowList parse_env_allow_list(const std::string& text);

} // namespace af::load
