// What a build tells as it goes and at the end: the progress line, the
// counts of the summary, `status`'s per-job account and the JSON report.
#pragma once

#include "base/build_options.hpp"
#include "base/build_result.hpp"
#include "load/config.hpp"
#include "report/progress.hpp"

#include <iosfwd>
#include <string>

namespace af::report {

class BuildStatus {
  public:
    BuildStatus(const base::BuildOptions& opt, std::ostream& out, std::ostream& err);

    Progress& progress() { return progress_; }
    base::BuildSummary& summary() { return summary_; }
    std::ostream& err() { return err_; }
    const base::BuildOptions& options() const { return opt_; }

    // Counts a finished action. Returns false when it was counted quietly
    // (up to date, skipped): the caller reports those to the progress line in
    // bulk. Not locked: callers hold the scheduler's lock.
    bool add(base::ActionResult r);
    // A message above the progress line (not when quiet).
    void note(const std::string& text);
    // An output removed (or, in `status`, to be removed): one line each in a build; in `status` only with -v,
    // the summary counts them (a tree that lost 300 files must not print 300 lines under "(-v lists them)").
    void note_removal(const std::string& text);
    void explain(const base::ActionResult& r);

    // At the end: the failures, then a one-line summary (or `status`'s account).
    void print_summary(const load::Pipeline& p, double secs);
    void write_report(const load::Pipeline& p, double secs, const std::string& file) const;

  private:
    void print_status(const load::Pipeline& p);
    Progress::Mode mode() const;
    bool colour(int fd) const;

    const base::BuildOptions& opt_;
    std::ostream& out_;
    std::ostream& err_;
    bool colour_err_;
    Progress progress_;
    base::BuildSummary summary_;
};

} // namespace af::report
