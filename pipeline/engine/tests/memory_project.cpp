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

base::BuildSummary MemoryProject::build(const std::string& yaml, base::BuildOptions opt) {
    load::Pipeline p = load::parse_pipeline(yaml, std::string(kRoot) + "/pipeline.yaml", {}, steps);
    opt.progress = 0;
    out.str(""), err.str("");
    report::BuildStatus status(opt, out, err);
    // The globs over the sources put(), sorted as the real walk sorts them.
    InputGlob glob = [this](const load::Job& j, std::vector<size_t>* per_pattern) {
        std::vector<base::GlobMatch> found;
        std::vector<std::string> rels = sources;
        std::sort(rels.begin(), rels.end());
        for (const auto& pattern : j.patterns) {
            size_t n = 0;
            for (const auto& rel : rels)
                if (base::glob_match(pattern, rel)) {
                    const std::string base = base::glob_base(pattern);
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
