#include "engine/build/remote_step.hpp"

#include "assetforge/user_text.hpp"
#include "engine/cached_entry_paths.hpp"
#include "engine/plan.hpp"
#include "engine/remote_cache_keys.hpp"
#include "remote/remote_client.hpp"

#include <algorithm>

namespace af::engine {

RemoteStep::RemoteStep(remote::RemoteClient& cache, std::string plugin_identities, ProjectPaths paths,
                       report::TraceLog& trace, MemoryBudget& budget, std::function<void(const std::string&)> warn,
                       RemoteStepRules rules)
    : cache_(cache), plugin_identities_(std::move(plugin_identities)), paths_(std::move(paths)), trace_(trace),
      budget_(budget), warn_(std::move(warn)), rules_(std::move(rules)) {}

std::string RemoteStep::key(const JobRun& j, const Hash128& input_hash) const {
    return remote_action_key(cache_, j.signature, input_hash, plugin_identities_);
}

bool RemoteStep::holds(const std::string& key) { return cache_.lookup(key).has_value(); }

bool RemoteStep::taken(const RemoteAction& a, const std::string& abs) const {
    const std::string rel = paths_.rel_of(abs);
    const bool mine = a.previous && std::any_of(a.previous->outputs.begin(), a.previous->outputs.end(),
                                                [&](const OutputRecord& o) { return o.path == rel; });
    if (rules_.never(abs, a.who)) return true;
    if (mine) return false;
    return rules_.occupied(abs);
}

std::optional<RemoteStep::Fetched> RemoteStep::fetch(const RemoteAction& a, std::optional<BudgetLease>& lease) {
    const JobRun& j = a.j;
    const int64_t ts = trace_.now_us();
    auto entry = cache_.lookup(a.key);
    if (!entry) return std::nullopt;
    CachedOutputRule rule;
    rule.project_root = paths_.root;
    rule.out_base = j.out_base;
    rule.tpl = &j.tpl;
    rule.predicted = predicted_outputs(j.tpl, j.job->is_gather(), j.plan && j.plan->keeps_names, a.input_name,
                                       j.job->name, paths_.root);
    rule.fixed = input_name_values(j.job->is_gather(), a.input_name, j.job->name);
    rule.taken = [&](const std::string& abs) { return taken(a, abs); };
    std::vector<std::string> rels;
    for (const auto& f : entry->files) rels.push_back(f.path);
    if (const std::string why = cached_paths_problem(rule, rels); !why.empty()) {
        // Once per build: a cache that does this once likely does it for every entry.
        if (!foreign_entry_warned_.exchange(true))
            warn_("entry " + a.key.substr(0, 12) + " of job '" + base::printable_name(j.job->name) + "' " +
                  base::printable_name(why) + "; such entries are ignored and their actions built locally");
        return std::nullopt;
    }
    // The blobs stream to files, but hashing and writing them brings their pages into memory: they count
    // against the budget from here to the commit. An entry larger than the whole budget takes all of it
    // (its pages are file-backed: the kernel can drop them under pressure, as it cannot an image's).
    uint64_t declared = 0;
    for (const auto& f : entry->files) declared += uint64_t(std::max<int64_t>(f.digest.size, 0));
    lease.emplace(budget_, std::min(declared, budget_.limit()));
    auto blobs = cache_.fetch(*entry);
    if (!blobs) return std::nullopt;
    Fetched got;
    int64_t bytes = 0;
    for (size_t i = 0; i < entry->files.size(); ++i) {
        ActionOutput& o = got.outputs.emplace_back();
        o.rel = entry->files[i].path;
        o.abs = paths_.abs_of(o.rel);
        o.owner = (*blobs)[i].owner;
        o.held = (*blobs)[i].bytes;
        o.hash = hash_bytes(o.held);
        bytes += int64_t(o.held.size());
    }
    trace_.add("fetch", j.job->name, a.label, ts, trace_.now_us() - ts, bytes);
    got.warnings = entry->warnings;
    return got;
}

void RemoteStep::upload(const RemoteAction& a, const std::vector<ActionOutput>& outputs,
                        const std::vector<std::string>& warnings) {
    if (!cache_.uploads()) return;
    std::vector<std::pair<std::string, std::span<const uint8_t>>> files;
    for (const auto& o : outputs) {
        // Outputs outside the project have no path another checkout shares.
        if (!cached_path_allowed(paths_.root, a.j.out_base, o.rel)) return;
        files.emplace_back(o.rel, o.data());
    }
    const int64_t ts = trace_.now_us();
    cache_.upload(a.key, files, warnings);
    trace_.add("upload", a.j.job->name, a.label, ts, trace_.now_us() - ts);
}

} // namespace af::engine
