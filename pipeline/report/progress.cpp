#include "report/progress.hpp"

#include "base/user_words.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

namespace af::report {

using Clock = std::chrono::steady_clock;

Progress::Progress(std::ostream& out, Mode mode, bool colour, std::chrono::milliseconds heartbeat)
    : out_(out), mode_(mode), colour_(colour), heartbeat_(heartbeat) {
    start_ = last_draw_ = last_output_ = Clock::now();
    if (mode_ != Mode::Quiet) ticker_ = std::thread([this] { tick(); });
}

Progress::~Progress() { finish(); }

void Progress::add_total(size_t n, uint64_t known_bytes, size_t known) {
    std::lock_guard lk(mu_);
    total_ += n;
    known_bytes_ += known_bytes;
    known_left_ += known;
}

void Progress::adjust_total(int64_t delta) {
    std::lock_guard lk(mu_);
    total_ = delta < 0 && size_t(-delta) > total_ ? 0 : size_t(int64_t(total_) + delta);
}

void Progress::started(const std::string& what, uint64_t bytes) {
    if (mode_ == Mode::Quiet) return;
    std::lock_guard lk(mu_);
    running_.emplace(base::printable_name(what), Running{Clock::now(), bytes});
    if (mode_ == Mode::Terminal) redraw_locked(false);
}

void Progress::finished(const std::string& what, bool ran, bool failed) {
    std::lock_guard lk(mu_);
    ++done_;
    if (ran) ++ran_;
    if (mode_ == Mode::Quiet) return;
    const std::string name = base::printable_name(what);
    if (auto it = running_.find(name); it != running_.end()) {
        const uint64_t b = it->second.bytes;
        if (ran) ran_bytes_ += b;
        if (b && known_left_) {
            --known_left_;
            known_done_bytes_ += b;
        }
        running_.erase(it);
    }
    if (mode_ == Mode::Plain && ran) {
        out_ << "[" << done_ << "/" << shown_total_locked() << "] "
             << (failed ? (colour_ ? "\033[1;31mFAILED\033[0m " : "FAILED ") : "") << name << "\n";
        last_output_ = Clock::now();
    } else if (mode_ == Mode::Terminal) {
        if (failed) {
            // A failure stays on screen above the status line.
            if (drawn_) out_ << "\r\033[K";
            out_ << (colour_ ? "\033[1;31mFAILED\033[0m " : "FAILED ") << name << "\n";
            drawn_ = false;
        }
        redraw_locked(failed);
    }
}

// The estimate can fall behind (an action nobody expected, a job waiting on a failed one): what is done or running
// is known for certain, so the total shown is never below it.
size_t Progress::shown_total_locked() const { return std::max(total_, done_ + running_.size()); }

void Progress::up_to_date(size_t n) {
    if (n == 0) return;
    std::lock_guard lk(mu_);
    if (mode_ == Mode::Terminal) redraw_locked(false);
}

void Progress::line(const std::string& text) {
    std::lock_guard lk(mu_);
    if (mode_ == Mode::Quiet) return;
    if (mode_ == Mode::Terminal && drawn_) out_ << "\r\033[K";
    out_ << base::printable_name(text) << "\n";
    last_output_ = Clock::now();
    if (mode_ == Mode::Terminal) redraw_locked(true);
}

namespace {
// "job: …/end/of/a/long/path.png" in at most `width` bytes: the job and the file's own name are what tell
// actions apart, so the middle goes. Cut at a character boundary: a stray UTF-8 continuation byte is a C1
// control to some terminals.
std::string shorten(const std::string& what, size_t width) {
    if (what.size() <= width) return what;
    size_t colon = what.find(": ");
    std::string head = colon != std::string::npos && colon + 2 <= width / 2 ? what.substr(0, colon + 2) : "";
    size_t from = what.size() - (width - head.size() - 1);
    while (from < what.size() && (static_cast<unsigned char>(what[from]) & 0xc0) == 0x80) ++from;
    return head + "…" + what.substr(from);
}
} // namespace

// "job: a.png (12s), job: b.png (3s) +2 more": longest-running first, each shortened to fit its share of `width`.
std::string Progress::running_text_locked(Clock::time_point now, size_t max, size_t width) const {
    std::vector<std::pair<Clock::time_point, const std::string*>> v;
    for (const auto& [what, r] : running_) v.emplace_back(r.since, &what);
    std::sort(v.begin(), v.end());
    std::string s;
    const size_t shown = std::min(v.size(), max);
    const size_t each = shown ? std::max<size_t>(24, width / shown - 8) : width;
    for (size_t i = 0; i < shown; ++i) {
        const auto secs = std::chrono::duration_cast<std::chrono::seconds>(now - v[i].first).count();
        s += (i ? ", " : "") + shorten(*v[i].second, each) + " (" + std::to_string(secs) + "s)";
    }
    if (v.size() > max) s += " +" + std::to_string(v.size() - max) + " more";
    return s;
}

// Seconds left: the bytes still to go at the bytes-per-second of what ran so
// far. Actions of unknown size (downstream of others, not yet decided) count
// as the mean finished one; with no sizes at all, it is actions per second.
double Progress::seconds_left_locked(double elapsed) const {
    const size_t total = shown_total_locked();
    if (elapsed <= 0 || ran_ == 0 || total <= done_) return -1;
    if (ran_bytes_ == 0) return double(total - done_) / (double(ran_) / elapsed);
    const double mean = double(ran_bytes_) / double(ran_);
    const double known = known_bytes_ > known_done_bytes_ ? double(known_bytes_ - known_done_bytes_) : 0;
    const size_t unknown = total - done_ > known_left_ ? total - done_ - known_left_ : 0;
    return (known + double(unknown) * mean) / (double(ran_bytes_) / elapsed);
}

void Progress::redraw_locked(bool force) {
    auto now = Clock::now();
    if (!force && now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    double secs = std::chrono::duration<double>(now - start_).count();
    double rate = secs > 0 ? double(ran_) / secs : 0;
    char buf[160];
    std::string eta = "--";
    if (const double left = std::min(seconds_left_locked(secs), 359999.0); left >= 0) {
        char e[32];
        snprintf(e, sizeof e, "%dm%02ds", int(left) / 60, int(left) % 60);
        eta = e;
    }
    snprintf(buf, sizeof buf, "[%zu/%zu] %.1f/s ETA %s ", done_, shown_total_locked(), rate, eta.c_str());
    out_ << "\r\033[K" << buf << running_text_locked(now, 2, 70) << std::flush;
    drawn_ = true;
}

// Terminal: redraws a few times a second, so the running times move while
// one long action runs. Piped: after `heartbeat_` of silence, one line.
void Progress::tick() {
    std::unique_lock lk(mu_);
    const auto period = mode_ == Mode::Terminal
                            ? std::chrono::milliseconds(250)
                            : std::min<std::chrono::milliseconds>(heartbeat_, std::chrono::seconds(1));
    while (!stop_) {
        wake_.wait_for(lk, period);
        if (stop_ || running_.empty()) continue;
        const auto now = Clock::now();
        if (mode_ == Mode::Terminal) {
            redraw_locked(true);
        } else if (now - last_output_ >= heartbeat_) {
            out_ << "[" << done_ << "/" << shown_total_locked()
                 << "] still running: " << running_text_locked(now, 4, 200) << "\n"
                 << std::flush;
            last_output_ = now;
        }
    }
}

void Progress::finish() {
    {
        std::lock_guard lk(mu_);
        stop_ = true;
    }
    wake_.notify_all();
    if (ticker_.joinable()) ticker_.join();
    std::lock_guard lk(mu_);
    if (mode_ == Mode::Terminal && drawn_) out_ << "\r\033[K" << std::flush;
    drawn_ = false;
}

} // namespace af::report
