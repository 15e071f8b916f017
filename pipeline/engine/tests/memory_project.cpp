#include "memory_project.hpp"

#include "base/glob.hpp"
#include "report/build_status.hpp"

#include <algorithm>

namespace af::engine::test {

std::shared_ptr<StateStore> MemoryStateFolder::open() {
    if (!kept_) kept_ = std::make_shared<StateStore>(StateStore::InMemory{}, self_);
    return kept_;
}

MemoryProject::MemoryProject() = default;

void MemoryProject::put(const std::string& rel, const std::string& text) {
    disk.put(abs(rel), text);
    if (std::find(sources.begin(), sources.end(), rel) == sources.end()) sources.push_back(rel);
}

BuildSummary MemoryProject::build(const std::string& yaml, BuildOptions opt) {
    Pipeline p = parse_pipeline(yaml, std::string(kRoot) + "/pipeline.yaml", {}, steps);
    opt.progress = 0;
    out.str(""), err.str("");
    BuildStatus status(opt, out, err);
    // The globs over the sources put(), sorted as the real walk sorts them.
    InputGlob glob = [this](const Job& j, std::vector<size_t>* per_pattern) {
        std::vector<GlobMatch> found;
        std::vector<std::string> rels = sources;
        std::sort(rels.begin(), rels.end());
        for (const auto& pattern : j.patterns) {
            size_t n = 0;
            for (const auto& rel : rels)
                if (glob_match(pattern, rel)) {
                    const std::string base = glob_base(pattern);
                    found.push_back({abs(rel), base.empty() ? rel : rel.substr(base.size() + 1), ""});
                    ++n;
                }
            if (per_pattern) per_pattern->push_back(n);
        }
        return found;
    };
    return run_build(p, steps, opt, {disk, state, status, glob, {}});
}

} // namespace af::engine::test
