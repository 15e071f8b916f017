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
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace af::engine {

class PictureWriter {
  public:
    // `max_pending`: bytes queued before write() waits for the thread.
    explicit PictureWriter(uint64_t max_pending = uint64_t(64) << 20);
    ~PictureWriter();
    PictureWriter(const PictureWriter&) = delete;
    PictureWriter& operator=(const PictureWriter&) = delete;

    // `bytes` become `target` (temp + rename, no fsync: a picture lost in a
    // crash costs nothing). Thread-safe.
    void write(std::filesystem::path target, std::vector<uint8_t> bytes);
    // `target` becomes a copy of `from`.
    void copy(std::filesystem::path target, std::filesystem::path from);

    // Waits until everything queued is in place; returns what failed, one
    // line each (and forgets it).
    std::vector<std::string> finish();

  private:
    struct Job {
        std::filesystem::path target, from; // from: copy instead of bytes
        std::vector<uint8_t> bytes;
    };
    void push(Job job);
    void run();

    const uint64_t max_pending_;
    std::mutex m_;
    std::condition_variable wake_, room_;
    std::deque<Job> queue_;
    uint64_t pending_ = 0;
    bool busy_ = false, stop_ = false;
    std::vector<std::string> problems_;
    std::thread thread_;
};

} // namespace af::engine
