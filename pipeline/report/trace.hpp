// Chrome trace-event JSON (opens in Perfetto / chrome://tracing): one
// complete event ("ph": "X") per action ("action") and per phase inside it:
// "read file" (I/O), "key" (input hashes), "parse" (the container's reader),
// each step by name, "encode dds" / "encode png" / … (the output container's
// writer), "hash", "write file" (atomic write) and "commit" (build state),
// with the bytes each handled in its args; "action" slices also say how the
// action ended and what it discarded (args.status, args.warnings), and an
// up-to-date action has one too.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace af::report {

class TraceLog {
  public:
    TraceLog();
    // Events are kept only once enabled (a build asked for --trace): a no-op
    // build of 10,000 files records nothing.
    void enable() { on_ = true; }
    bool on() const { return on_; }
    // Microseconds since the log was created.
    int64_t now_us() const;
    void add(std::string name, std::string category, std::string input, int64_t start_us, int64_t dur_us,
             int64_t bytes = -1);
    // The "action" slice of one action: how it ended ("built", "up-to-date", …)
    // and what it discarded (its warnings, kept ones too), in its args.
    void add_action(std::string job, std::string input, int64_t start_us, int64_t dur_us, std::string status,
                    std::vector<std::string> warnings);
    // Times fn() and adds it as one event; returns what fn returns.
    template <class F>
    auto span(const char* name, const std::string& category, const std::string& input, F&& fn, int64_t bytes = -1) {
        const int64_t ts = now_us();
        struct Add {
            TraceLog& log;
            const char* name;
            const std::string& cat;
            const std::string& input;
            int64_t ts, bytes;
            ~Add() { log.add(name, cat, input, ts, log.now_us() - ts, bytes); }
        } add{*this, name, category, input, ts, bytes};
        return fn();
    }
    void write(const std::filesystem::path& file) const; // atomically

  private:
    struct Event {
        std::string name, cat, input;
        int64_t ts, dur;
        int tid;
        int64_t bytes;
        std::string status = {};                // "action" slices only
        std::vector<std::string> warnings = {}; // "action" slices only
    };
    std::chrono::steady_clock::time_point t0_;
    bool on_ = false;
    mutable std::mutex mu_;
    std::vector<Event> events_;
};

} // namespace af::report
