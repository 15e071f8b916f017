#include "report/junit_report.hpp"

#include "base/markup_text.hpp"

#include <cstdio>
#include <map>
#include <vector>

namespace af::report {

namespace {

std::string seconds_text(double s) {
    char buf[32];
    snprintf(buf, sizeof buf, "%.3f", s);
    return buf;
}

// The action's warnings (what it discarded), one per line.
std::string warning_text(const base::ActionResult& a) {
    std::string out;
    for (const auto& w : a.results.warning_lines()) out += (out.empty() ? "" : "\n") + std::string("warning: ") + w;
    return out;
}

} // namespace

std::string junit_xml(const base::BuildSummary& s, double seconds) {
    std::map<std::string, std::vector<const base::ActionResult*>> by_job;
    for (const auto& a : s.actions)
        if (a.status != base::ActionStatus::Removed && a.status != base::ActionStatus::WouldRemove)
            by_job[a.job].push_back(&a);
    size_t tests = 0, failures = 0, skipped = 0;
    std::string suites;
    for (const auto& [job, actions] : by_job) {
        size_t f = 0, sk = 0;
        double t = 0;
        std::string cases;
        for (const base::ActionResult* a : actions) {
            t += a->duration_ms / 1000;
            cases += "    <testcase classname=\"" + base::markup_text(job) + "\" name=\"" +
                     base::markup_text(a->input) + "\" time=\"" + seconds_text(a->duration_ms / 1000) + "\"";
            // A plugin's log lines (its warnings are among the warnings) go to system-out, whatever the outcome.
            std::string log;
            for (const auto& l : a->results.plugin_log) log += (log.empty() ? "" : "\n") + l;
            const std::string out =
                log.empty() ? "" : "      <system-out>" + base::markup_text(log) + "</system-out>\n";
            if (a->status == base::ActionStatus::Failed) {
                ++f;
                cases += ">\n      <failure message=\"" + base::markup_text(a->failed_step + ": " + a->error) +
                         "\" type=\"" + base::markup_text(a->failed_step) + "\">" + base::markup_text(a->error) +
                         "</failure>\n";
                if (const std::string w = warning_text(*a); !w.empty())
                    cases += "      <system-err>" + base::markup_text(w) + "</system-err>\n";
                cases += out + "    </testcase>\n";
            } else if (a->status == base::ActionStatus::NotRun || a->status == base::ActionStatus::Skipped) {
                ++sk;
                cases += ">\n      <skipped message=\"" + base::markup_text(a->reason) + "\"/>\n" + out +
                         "    </testcase>\n";
            } else if (const std::string w = warning_text(*a); !w.empty()) {
                // CI shows system-err beside the case; under --warnings-as-errors it is a failure.
                cases += ">\n";
                if (s.warnings_fail) {
                    ++f;
                    cases += "      <failure message=\"" + base::markup_text(w.substr(0, w.find('\n'))) +
                             "\" type=\"warning\">" + base::markup_text(w) + "</failure>\n";
                }
                cases += "      <system-err>" + base::markup_text(w) + "</system-err>\n" + out + "    </testcase>\n";
            } else if (!out.empty()) {
                cases += ">\n" + out + "    </testcase>\n";
            } else {
                cases += "/>\n";
            }
        }
        tests += actions.size();
        failures += f;
        skipped += sk;
        suites += "  <testsuite name=\"" + base::markup_text(job) + "\" tests=\"" + std::to_string(actions.size()) +
                  "\" failures=\"" + std::to_string(f) + "\" errors=\"0\" skipped=\"" + std::to_string(sk) +
                  "\" time=\"" + seconds_text(t) + "\">\n" + cases + "  </testsuite>\n";
    }
    return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites name=\"assetforge build\" tests=\"" +
           std::to_string(tests) + "\" failures=\"" + std::to_string(failures) + "\" errors=\"0\" skipped=\"" +
           std::to_string(skipped) + "\" time=\"" + seconds_text(seconds) + "\">\n" + suites + "</testsuites>\n";
}

} // namespace af::report
