#include "load/job_selection.hpp"

#include <set>
#include <stdexcept>

namespace af::load {

void select_jobs(Pipeline& p, const std::vector<std::string>& names) {
    if (names.empty()) return;
    std::vector<std::string> all;
    for (const auto& j : p.jobs) all.push_back(j.name);
    std::set<std::string> keep;
    std::vector<std::string> todo;
    for (const auto& n : names) {
        if (!p.job(n)) throw std::invalid_argument(base::not_one_of("job", n, all));
        todo.push_back(n);
    }
    while (!todo.empty()) {
        std::string n = todo.back();
        todo.pop_back();
        if (!keep.insert(n).second) continue;
        const Job* j = p.job(n);
        todo.insert(todo.end(), j->from.begin(), j->from.end());
        todo.insert(todo.end(), j->needs.begin(), j->needs.end());
    }
    std::vector<Job> kept;
    for (auto& j : p.jobs) (keep.count(j.name) ? kept : p.unselected).push_back(std::move(j));
    p.jobs = std::move(kept);
}

} // namespace af::load
