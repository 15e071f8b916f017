#include "engine/reserved_paths.hpp"

#include "base/glob.hpp"

namespace af::engine {
namespace fs = std::filesystem;

ReservedPaths ReservedPaths::of(const load::Pipeline& p, const fs::path& state_dir) {
    ReservedPaths r;
    r.files.push_back(fs::absolute(p.file).lexically_normal().native());
    for (const auto& inc : p.includes) r.files.push_back(fs::absolute(inc).lexically_normal().native());
    r.state_dir = fs::absolute(state_dir).lexically_normal().native();
    while (r.state_dir.size() > 1 && r.state_dir.back() == '/') r.state_dir.pop_back();
    return r;
}

std::string ReservedPaths::why(const std::string& abs) const {
    for (size_t i = 0; i < files.size(); ++i)
        if (abs == files[i]) return i == 0 ? "the pipeline file" : "a file the pipeline includes";
    if (!state_dir.empty() &&
        (abs == state_dir || (abs.size() > state_dir.size() && abs.compare(0, state_dir.size(), state_dir) == 0 &&
                              (state_dir == "/" || abs[state_dir.size()] == '/'))))
        return "in the build's state folder " + state_dir;
    return "";
}

bool is_state_file(std::string_view name) {
    return name == "state.db" || name == "state.db-wal" || name == "state.db-shm" || name == "state.db-journal" ||
           name == "lock" || name == "running" || name.starts_with("state.db.damaged-");
}

std::vector<std::string> side_file_problems(const std::string& flag, const fs::path& file,
                                            const ReservedPaths& reserved, const std::vector<PlanJob>& jobs,
                                            const Plan& plan, const PlanState& state, const fs::path& root) {
    std::vector<std::string> out;
    const std::string abs = fs::absolute(file).lexically_normal().native();
    const std::string shown = flag + " " + file.string();
    if (std::string why = reserved.why(abs); !why.empty()) {
        out.push_back(shown + " would replace " + abs + ", " + why + "; a build never writes it: choose another file");
        return out;
    }
    if (auto it = plan.writer.find(abs); it != plan.writer.end()) {
        out.push_back(shown + " is an output of job '" + jobs[it->second.first].job->name + "'; choose another file");
        return out;
    }
    if (auto it = state.recorded.find(abs); it != state.recorded.end()) {
        out.push_back(shown + " is an output the build recorded for job '" + it->second.job + "'; choose another file");
        return out;
    }
    const std::string rel = fs::path(abs).lexically_relative(root).generic_string();
    for (const auto& pj : jobs)
        for (const auto& pat : pj.job->patterns) {
            const std::string ap = fs::path(pat).is_absolute() ? pat : (root / pat).lexically_normal().native();
            if (!base::glob_match(ap, abs)) continue;
            bool excluded = false;
            for (const auto& ex : pj.job->excludes) excluded = excluded || base::glob_match(ex, rel);
            if (excluded) continue;
            out.push_back(shown + " is matched by the input pattern '" + pat + "' of job '" + pj.job->name +
                          "': it would replace a source or be read back as an input; choose a file no job reads");
            return out;
        }
    return out;
}

} // namespace af::engine
