// Extraction outputs that appear complete or not at all, with one flush for
// the whole batch. The SDK's AtomicFile flushes every file before renaming
// it; an extraction writes thousands of small files, and a flush each made
// it I/O-bound (5000 files: 8.8 s, nearly all waiting on fsync). Here every
// file goes to a temporary in its target's folder, one syncfs() flushes them
// all, and only then are they renamed into place: after a crash a name
// points at complete contents or at nothing, as with AtomicFile. Writeback of
// each large temporary starts when it is written, so the syncfs waits for less.
#pragma once

#include <cstdint>
#include <filesystem>
#include <mutex>
#include <span>
#include <utility>
#include <vector>

namespace af::evr {

class OutputBatch {
  public:
    OutputBatch() = default;
    ~OutputBatch(); // removes temporaries not committed (a failed extraction leaves no stray files)
    OutputBatch(const OutputBatch&) = delete;
    OutputBatch& operator=(const OutputBatch&) = delete;

    // Thread-safe. The target's folder must exist. Throws sdk::Error (AF_ERR_IO).
    void add(const std::filesystem::path& target, std::span<const uint8_t> head, std::span<const uint8_t> body);
    // The same with the contents given as pieces written in order.
    void add(const std::filesystem::path& target, const std::vector<std::span<const uint8_t>>& pieces);
    // Flushes every temporary, then renames each over its target.
    void commit();

  private:
    std::mutex mutex_;
    std::vector<std::pair<std::filesystem::path, std::filesystem::path>> pending_; // temporary, target
};

} // namespace af::evr
