// Build progress: one refreshing status line on a terminal (done/total,
// rate, ETA, current file), one line per action otherwise, nothing when quiet.
// Everything passed in is printed through printable_name(): file names come
// from disk and may hold a newline or ESC.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <ostream>
#include <string>

namespace af::engine {

class Progress {
  public:
    enum class Mode { Quiet, Plain, Terminal };
    Progress(std::ostream& out, Mode mode);

    // The actions expected to run; put right as each is decided (+1, -1).
    void add_total(size_t n);
    void adjust_total(int64_t delta);
    void started(const std::string& what);
    // `ran` is false for actions found up to date (counted, never printed).
    void finished(const std::string& what, bool ran, bool failed);
    void up_to_date(size_t n);          // actions found up to date (not in the total: only redraws)
    void line(const std::string& text); // explain / messages, above the status line
    void finish();

  private:
    void redraw_locked(bool force);

    std::ostream& out_;
    Mode mode_;
    std::mutex mu_;
    size_t total_ = 0, done_ = 0, ran_ = 0;
    std::string current_;
    std::chrono::steady_clock::time_point start_, last_draw_;
    bool drawn_ = false;
};

} // namespace af::engine
