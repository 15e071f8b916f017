// What became of a build: one record per action and the totals. A leaf, so
// the status printer and the JSON/JUnit/HTML reports read results without
// including the engine.
#pragma once

#include "base/action_status.hpp"
#include "base/report_figures.hpp"
#include "base/step_results.hpp"

#include <memory>
#include <string>
#include <vector>

namespace af::base {

struct ActionResult {
    std::string job, input;          // input relative to the root ("*" for a gather)
    std::vector<std::string> inputs; // every input file (several for a gather)
    std::vector<std::string> outputs;
    std::string key;
    ActionStatus status = ActionStatus::NotRun;
    std::string reason; // why it ran (explain)
    std::string failed_step, error;
    double duration_ms = 0;
    StepResults results;                         // what its steps reported (or kept warnings)
    std::shared_ptr<const ReportFigures> images; // BuildOptions::report_images, texture actions that ran
};

struct BuildSummary {
    size_t built = 0, cached = 0, up_to_date = 0, failed = 0, removed = 0, not_run = 0, skipped = 0;
    bool cancelled = false;
    size_t warnings = 0;               // warning lines of the actions, kept ones of up-to-date actions too
    bool warnings_fail = false;        // BuildOptions::warnings_as_errors and there were some
    bool remote_cache_fail = false;    // BuildOptions::remote_cache_required and the cache failed
    int plan_exit = 0;                 // the plan refused the build: 2 broken promise, 1 empty input
    std::vector<ActionResult> actions; // in completion order
    int exit_code() const {
        return plan_exit ? plan_exit : failed || cancelled || warnings_fail || remote_cache_fail ? 1 : 0;
    }
};

} // namespace af::base
