// The HTML report's picture files, written by a thread of their own. Each
// file is a create, a write and a rename: cheap in CPU, but beside a build
// that fsyncs every output they wait for the file system's journal (0.3 to
// 0.6 ms each on ext4, measured), which on the action's thread was as much
// as all the report's decoding, diffing and deflating together. Queued, the
// waits overlap the build instead; the queue is bounded, so memory is too.
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace af::report {

class PictureWriter {
  public:
    // `within`: every target's folder must resolve inside it (a link there
    // is never written through). `max_pending`: bytes queued before write()
    // waits for the thread.
    explicit PictureWriter(std::filesystem::path within, uint64_t max_pending = uint64_t(64) << 20);
    ~PictureWriter();
    PictureWriter(const PictureWriter&) = delete;
    PictureWriter& operator=(const PictureWriter&) = delete;

    // `bytes` become `target` (temp + rename, no fsync: a picture lost in a
    // crash costs nothing). Thread-safe.
    void write(std::filesystem::path target, std::vector<uint8_t> bytes);

    // What a written file looked like just after its rename: proof enough,
    // later, that the file at that name is still the one written.
    struct Written {
        uint64_t ino = 0, size = 0;
        int64_t mtime_ns = 0;
        bool operator==(const Written&) const = default;
    };

    // Waits until everything queued is in place; returns what failed, one
    // line each (and forgets it).
    std::vector<std::string> finish();
    // Target file name → what was written there (call after finish()).
    std::map<std::string, Written> written() const;

  private:
    struct Job {
        std::filesystem::path target;
        std::vector<uint8_t> bytes;
    };
    void push(Job job);
    void run();

    const std::filesystem::path within_;
    const uint64_t max_pending_;
    mutable std::mutex m_;
    std::condition_variable wake_, room_;
    std::deque<Job> queue_;
    uint64_t pending_ = 0;
    bool busy_ = false, stop_ = false;
    std::vector<std::string> problems_;
    std::map<std::string, Written> written_;
    std::thread thread_;
};

} // namespace af::report
