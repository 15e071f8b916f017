// Extraction outputs that appear complete or not at all, with one flush for
// the whole batch. The SDK's AtomicFile flushes every file before renaming
// it; an extraction writes thousands of small files, and a flush each made
// it I/O-bound (5000 files: 8.8 s, nearly all waiting on fsync). Here every
// file goes to a temporary in its target's folder, one syncfs() flushes them
// all, and only then are they renamed into place: after a crash a name
// points at complete contents or at nothing, as with AtomicFile. Writeback of
// each large temporary starts when it is written, so the syncfs waits for less.
//
// The same guarantees as AtomicFile otherwise: temporaries are created
// O_EXCL|O_NOFOLLOW in the target's folder opened (and, given `within`,
// checked to resolve inside it, so a linked folder planted in an output tree
// is refused instead of written through), and renamed in an open folder that
// was checked the same way. Descriptors of up to 128 folders stay open; a
// folder whose descriptor was closed is opened and checked again.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace af::evr {

class OutputBatch {
  public:
    // `within` non-empty: every target's folder must resolve inside it.
    explicit OutputBatch(std::filesystem::path within);
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
    struct Pending {
        std::filesystem::path dir; // the target's folder
        std::string temp, name;    // names inside it
    };
    int folder(const std::filesystem::path& dir); // opened and checked once while cached; under mutex_
    void close_folders();

    std::filesystem::path within_, within_real_;
    std::mutex mutex_;
    std::map<std::filesystem::path, int> folders_;
    std::vector<Pending> pending_;
};

} // namespace af::evr
