#include "engine/progress.hpp"

#include "engine/config_error.hpp"

#include <cstdio>

namespace af::engine {

Progress::Progress(std::ostream& out, Mode mode) : out_(out), mode_(mode) {
    start_ = last_draw_ = std::chrono::steady_clock::now();
}

void Progress::add_total(size_t n) {
    std::lock_guard lk(mu_);
    total_ += n;
}

void Progress::adjust_total(int64_t delta) {
    std::lock_guard lk(mu_);
    total_ = delta < 0 && size_t(-delta) > total_ ? 0 : size_t(int64_t(total_) + delta);
}

void Progress::started(const std::string& what) {
    if (mode_ != Mode::Terminal) return;
    std::lock_guard lk(mu_);
    current_ = printable_name(what);
    redraw_locked(false);
}

void Progress::finished(const std::string& what, bool ran, bool failed) {
    std::lock_guard lk(mu_);
    ++done_;
    if (ran) ++ran_;
    if (mode_ == Mode::Plain && ran)
        out_ << "[" << done_ << "/" << total_ << "] " << (failed ? "FAILED " : "") << printable_name(what) << "\n";
    else if (mode_ == Mode::Terminal)
        redraw_locked(false);
}

void Progress::up_to_date(size_t n) {
    if (n == 0) return;
    std::lock_guard lk(mu_);
    if (mode_ == Mode::Terminal) redraw_locked(false);
}

void Progress::line(const std::string& text) {
    std::lock_guard lk(mu_);
    if (mode_ == Mode::Quiet) return;
    if (mode_ == Mode::Terminal && drawn_) out_ << "\r\033[K";
    out_ << printable_name(text) << "\n";
    if (mode_ == Mode::Terminal) redraw_locked(true);
}

void Progress::redraw_locked(bool force) {
    auto now = std::chrono::steady_clock::now();
    if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double rate = secs > 0 ? double(ran_) / secs : 0;
    char buf[160];
    std::string eta = "--";
    if (rate > 0 && total_ > done_) {
        double left = double(total_ - done_) / rate;
        char e[32];
        snprintf(e, sizeof e, "%dm%02ds", int(left) / 60, int(left) % 60);
        eta = e;
    }
    snprintf(buf, sizeof buf, "[%zu/%zu] %.1f/s ETA %s ", done_, total_, rate, eta.c_str());
    std::string cur = current_;
    if (cur.size() > 60) {
        // Cut at a character boundary: a stray UTF-8 continuation byte is a C1 control to some terminals.
        size_t from = cur.size() - 59;
        while (from < cur.size() && (static_cast<unsigned char>(cur[from]) & 0xc0) == 0x80) ++from;
        cur = "…" + cur.substr(from);
    }
    out_ << "\r\033[K" << buf << cur << std::flush;
    drawn_ = true;
}

void Progress::finish() {
    std::lock_guard lk(mu_);
    if (mode_ == Mode::Terminal && drawn_) out_ << "\r\033[K" << std::flush;
    drawn_ = false;
}

} // namespace af::engine
