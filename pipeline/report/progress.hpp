// Build progress, as ninja shows it: on a terminal one refreshing status line
// (done/total, rate, ETA and the actions running now, redrawn while a long
// one runs); piped, one line per finished action plus a heartbeat line naming
// what still runs when nothing was printed for a while (a CI log never looks
// hung); nothing when quiet. Everything passed in is printed through
// printable_name(): file names come from disk and may hold a newline or ESC.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <thread>

namespace af::report {

class Progress {
  public:
    enum class Mode { Quiet, Plain, Terminal };
    // `colour`: FAILED in red (a terminal that wants it); `heartbeat`: piped,
    // the longest silence before a line says what is running.
    Progress(std::ostream& out, Mode mode, bool colour = false,
             std::chrono::milliseconds heartbeat = std::chrono::seconds(10));
    ~Progress();
    Progress(const Progress&) = delete;
    Progress& operator=(const Progress&) = delete;

    // The actions expected to run; put right as each is decided (+1, -1).
    // `known` of the `n` have inputs of `known_bytes` in all: the ETA weighs
    // what is left by bytes, so big textures still to come count as such.
    void add_total(size_t n, uint64_t known_bytes = 0, size_t known = 0);
    void adjust_total(int64_t delta);
    // An action starts running (after it was found out of date); `bytes`:
    // its inputs' size (0: not known).
    void started(const std::string& what, uint64_t bytes = 0);
    // `ran` is false for actions that did not run (counted, never printed).
    void finished(const std::string& what, bool ran, bool failed);
    void up_to_date(size_t n);          // actions found up to date (not in the total: only redraws)
    void line(const std::string& text); // explain / messages, above the status line
    // Clears the status line and stops the redraws; also on destruction.
    void finish();

  private:
    void redraw_locked(bool force);
    void tick();
    std::string running_text_locked(std::chrono::steady_clock::time_point now, size_t max, size_t width) const;
    size_t shown_total_locked() const;
    double seconds_left_locked(double elapsed) const; // < 0: no estimate yet

    std::ostream& out_;
    Mode mode_;
    bool colour_;
    std::chrono::milliseconds heartbeat_;
    std::mutex mu_;
    size_t total_ = 0, done_ = 0, ran_ = 0;
    struct Running {
        std::chrono::steady_clock::time_point since;
        uint64_t bytes;
    };
    std::map<std::string, Running> running_; // what → since, input bytes
    // Bytes: of the actions counted with a known size, of those finished, and
    // of every action that ran (its rate); `known_left_` actions still to
    // finish have their size in `known_bytes_ - known_done_bytes_`.
    uint64_t known_bytes_ = 0, known_done_bytes_ = 0, ran_bytes_ = 0;
    size_t known_left_ = 0;
    std::chrono::steady_clock::time_point start_, last_draw_, last_output_;
    bool drawn_ = false;
    bool stop_ = false;
    std::condition_variable wake_;
    std::thread ticker_; // terminal: redraws; piped: heartbeats
};

} // namespace af::report
