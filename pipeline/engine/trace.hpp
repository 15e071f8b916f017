// Chrome trace-event JSON (opens in Perfetto / chrome://tracing): one
// complete event ("ph": "X") per step of every action.
#pragma once

#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

namespace af::engine {

class TraceLog {
public:
    TraceLog();
    // Microseconds since the log was created.
    int64_t now_us() const;
    void add(std::string name, std::string category, std::string input, int64_t start_us, int64_t dur_us);
    void write(const std::filesystem::path& file) const; // atomically

private:
    struct Event {
        std::string name, cat, input;
        int64_t ts, dur;
        int tid;
    };
    std::chrono::steady_clock::time_point t0_;
    mutable std::mutex mu_;
    std::vector<Event> events_;
};

} // namespace af::engine
