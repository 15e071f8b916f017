#include "report/trace.hpp"

#include "assetforge/atomic_file.hpp"
#include "base/name_text.hpp"

#include <nlohmann/json.hpp>
#include <tbb/task_arena.h>

#include <set>

namespace af::report {

TraceLog::TraceLog() : t0_(std::chrono::steady_clock::now()) {}

int64_t TraceLog::now_us() const {
    return std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - t0_).count();
}

void TraceLog::add(std::string name, std::string category, std::string input, int64_t start_us, int64_t dur_us,
                   int64_t bytes) {
    if (!on_) return;
    int tid = tbb::this_task_arena::current_thread_index();
    std::lock_guard lk(mu_);
    events_.push_back(
        {std::move(name), std::move(category), std::move(input), start_us, dur_us, tid < 0 ? 0 : tid, bytes});
}

void TraceLog::add_action(std::string job, std::string input, int64_t start_us, int64_t dur_us, std::string status,
                          std::vector<std::string> warnings) {
    if (!on_) return;
    int tid = tbb::this_task_arena::current_thread_index();
    std::lock_guard lk(mu_);
    events_.push_back({"action", std::move(job), std::move(input), start_us, dur_us, tid < 0 ? 0 : tid, -1,
                       std::move(status), std::move(warnings)});
}

void TraceLog::write(const std::filesystem::path& file) const {
    nlohmann::json events = nlohmann::json::array();
    {
        std::lock_guard lk(mu_);
        // Perfetto and chrome://tracing label each track by its thread name.
        std::set<int> tids;
        for (const auto& e : events_) tids.insert(e.tid);
        events.push_back({{"name", "process_name"}, {"ph", "M"}, {"pid", 1}, {"args", {{"name", "assetforge build"}}}});
        for (int tid : tids)
            events.push_back({{"name", "thread_name"},
                              {"ph", "M"},
                              {"pid", 1},
                              {"tid", tid},
                              {"args", {{"name", "worker " + std::to_string(tid)}}}});
        for (const auto& e : events_) {
            nlohmann::json args = nlohmann::json::object();
            base::put_name(args, "input", e.input);
            if (e.bytes >= 0) args["bytes"] = e.bytes;
            if (!e.status.empty()) args["status"] = e.status;
            if (!e.warnings.empty()) {
                args["warnings"] = nlohmann::json::array();
                for (const auto& w : e.warnings) args["warnings"].push_back(w); // json_text mends any bad UTF-8
            }
            events.push_back({{"name", e.name},
                              {"cat", e.cat},
                              {"ph", "X"},
                              {"ts", e.ts},
                              {"dur", e.dur},
                              {"pid", 1},
                              {"tid", e.tid},
                              {"args", args}});
        }
    }
    nlohmann::json doc = {{"traceEvents", events}, {"displayTimeUnit", "ms"}};
    sdk::write_file_atomic(file, base::json_text(doc, 1));
}

} // namespace af::report
