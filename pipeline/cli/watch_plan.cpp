#include "cli/watch_plan.hpp"

#include "cli/file_watcher.hpp"

#include "assetforge/atomic_file.hpp"
#include "base/glob.hpp"
#include "engine/build.hpp"
#include "engine/param_inputs.hpp"

#include <algorithm>

namespace af::cli {
namespace fs = std::filesystem;

namespace {

fs::path existing(fs::path dir) {
    std::error_code ec;
    while (!dir.empty() && dir != dir.root_path() && !fs::is_directory(dir, ec)) dir = dir.parent_path();
    return dir;
}

// Roots inside a recursive root add nothing but a second walk.
std::vector<WatchRoot> without_nested(std::vector<WatchRoot> roots) {
    std::sort(roots.begin(), roots.end(), [](const WatchRoot& a, const WatchRoot& b) {
        return a.dir.native() != b.dir.native() ? a.dir.native() < b.dir.native() : a.recursive > b.recursive;
    });
    std::vector<WatchRoot> kept;
    for (const auto& r : roots) {
        bool covered = false;
        for (const auto& k : kept)
            if (k.dir == r.dir || (k.recursive && path_is_below(r.dir.native(), k.dir.native()))) covered = true;
        if (!covered) kept.push_back(r);
    }
    return kept;
}

} // namespace

WatchPlan::WatchPlan(const load::Pipeline& p, const base::BuildOptions& opt) : root_(p.root.native()) {
    std::vector<WatchRoot> roots;
    for (const auto& job : p.jobs) {
        for (const auto& pattern : job.patterns) {
            std::vector<std::string> alts;
            try {
                base::expand_braces(pattern, alts);
            } catch (const std::invalid_argument&) {
                alts = {pattern}; // the loader already refused such a pattern
            }
            for (const auto& alt : alts) {
                patterns_.push_back(alt);
                const std::string base = base::glob_base(alt);
                const fs::path dir = base.empty() ? p.root : (p.root / base).lexically_normal();
                roots.push_back({dir, true});
            }
        }
        for (const auto& r : engine::param_reads(job, p.root)) {
            if (r.per_input) continue; // named per input: under the input patterns' folders or unknown until then
            const fs::path path = r.path.lexically_normal();
            if (r.folder) {
                param_folders_.push_back(path.native());
                roots.push_back({path, true});
            } else {
                param_files_.insert(path.native());
                roots.push_back({path.parent_path(), false});
            }
        }
    }
    pipeline_files_.insert(p.file.lexically_normal().native());
    for (const auto& inc : p.includes) pipeline_files_.insert(inc.lexically_normal().native());
    for (const auto& f : pipeline_files_) roots.push_back({fs::path(f).parent_path(), false});
    roots_ = std::move(roots);

    skip_.insert(engine::state_dir(p).lexically_normal().native());
    for (const auto* f : {&opt.report_file, &opt.trace_file})
        if (!f->empty()) ignored_.insert(fs::absolute(*f).lexically_normal().native());
    if (!opt.report_file.empty()) skip_.insert(fs::absolute(opt.report_file + ".d").lexically_normal().native());
}

void WatchPlan::watch_plugins(const std::vector<fs::path>& files) {
    for (const auto& f : files) {
        const fs::path abs = fs::absolute(f).lexically_normal();
        if (plugin_files_.insert(abs.native()).second) roots_.push_back({abs.parent_path(), false});
    }
}

std::vector<WatchRoot> WatchPlan::roots() const {
    std::vector<WatchRoot> now;
    for (const auto& r : roots_) {
        const fs::path dir = existing(r.dir);
        now.push_back({dir, r.recursive || dir != r.dir}); // an ancestor stands for a tree that may appear below
    }
    return without_nested(std::move(now));
}

std::string WatchPlan::rel(const std::string& abs) const {
    if (abs == root_) return ".";
    return path_is_below(abs, root_) ? abs.substr(root_.size() + (root_ == "/" ? 0 : 1)) : abs;
}

std::string WatchPlan::abs_of(const std::string& rel) const {
    if (rel.empty() || rel[0] == '/') return rel;
    // The build's relative names are normal already; anything else goes the long way.
    const bool plain = rel.find("./") == std::string::npos && rel.find("//") == std::string::npos && rel != "." &&
                       rel != ".." && !rel.ends_with("/.") && !rel.ends_with("/..") && rel.back() != '/';
    if (plain) return root_ == "/" ? "/" + rel : root_ + "/" + rel;
    return (fs::path(root_) / rel).lexically_normal().native();
}

std::string WatchPlan::source_of(const std::string& rel_output) const {
    auto it = sources_.find(rel_output);
    return it == sources_.end() ? std::string() : it->second;
}

bool WatchPlan::matters(const std::string& abs) const {
    if (pipeline_files_.count(abs) || plugin_files_.count(abs)) return true;
    if (ignored_.count(abs) || outputs_.count(abs)) return false;
    const std::string name = fs::path(abs).filename().native();
    if (name.rfind(sdk::kTempPrefix, 0) == 0) return false; // an atomic write on its way to its name
    for (const auto& s : skip_)
        if (abs == s || path_is_below(abs, s)) return false;
    if (param_files_.count(abs)) return true;
    for (const auto& f : param_folders_)
        if (path_is_below(abs, f)) return true;
    const std::string r = rel(abs);
    for (const auto& pat : patterns_)
        if (base::glob_match(pat, !pat.empty() && pat[0] == '/' ? abs : r)) return true;
    return false;
}

void WatchPlan::learn(const base::BuildSummary& s, bool some) {
    if (!some) {
        inputs_.clear();
        outputs_.clear();
        sources_.clear();
        inputs_.reserve(s.actions.size());
        outputs_.reserve(s.actions.size());
        sources_.reserve(s.actions.size());
    }
    for (const auto& a : s.actions) {
        for (const auto& i : a.inputs) inputs_.insert(abs_of(i));
        for (const auto& o : a.outputs) {
            outputs_.insert(abs_of(o));
            if (a.inputs.size() == 1) sources_[o] = a.inputs[0];
        }
    }
    // An output that a job also reads is an input first (kept, promise 18).
    for (const auto& i : inputs_) outputs_.erase(i);
}

} // namespace af::cli
