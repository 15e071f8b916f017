// What `assetforge watch` listens to for one loaded pipeline, and which of the
// paths the watcher reports can change what a build does: files the jobs'
// input patterns match, files and folders step parameters name, the pipeline
// file and its includes, folders that appear or go. Everything else (the
// build's own outputs and temporaries, the state, the report) is noise.
#pragma once

#include "base/build_options.hpp"
#include "base/build_result.hpp"
#include "cli/file_watcher.hpp"
#include "load/config.hpp"

#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace af::cli {

class WatchPlan {
  public:
    WatchPlan(const load::Pipeline& p, const base::BuildOptions& opt);

    // The folders to watch now: a pattern's folder that does not exist (yet, or
    // any more) is watched through its nearest existing ancestor.
    std::vector<WatchRoot> roots() const;
    const std::set<std::string>& skip() const { return skip_; }

    bool is_pipeline_file(const std::string& abs) const { return pipeline_files_.count(abs) > 0; }
    // The loaded plugins' files, watched through their folders (absolute).
    void watch_plugins(const std::vector<std::filesystem::path>& files);
    bool is_plugin_file(const std::string& abs) const { return plugin_files_.count(abs) > 0; }
    // Could a change of this file (absolute) change what a build reads?
    bool matters(const std::string& abs) const;

    // After each build: the files it read as inputs and the outputs it owns.
    // `some`: the build saw only some inputs (a rebuild of changed files): added to what is known.
    void learn(const base::BuildSummary& s, bool some = false);
    bool known_input(const std::string& abs) const { return inputs_.count(abs) > 0; }
    std::string rel(const std::string& abs) const;
    // The input an output (relative) was made from, by a one-input action; "" when none.
    std::string source_of(const std::string& rel_output) const;

  private:
    std::string abs_of(const std::string& rel) const;

    std::string root_;
    std::vector<WatchRoot> roots_;
    std::set<std::string> skip_, pipeline_files_, plugin_files_, param_files_, ignored_;
    std::vector<std::string> patterns_, param_folders_;
    std::unordered_set<std::string> inputs_, outputs_;
    std::unordered_map<std::string, std::string> sources_; // relative output → relative input (one-input actions)
};

} // namespace af::cli
