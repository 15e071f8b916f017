// The build state in .assetforge/state.db (SQLite, WAL): a stat cache that
// lets a no-op build avoid reading files, and one record per action.
// Loaded whole at start; changes are queued and committed in batches, so a
// killed build loses at most the last batch (those actions just run again).
#pragma once

#include "core/content_hash.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

struct sqlite3;

namespace af::engine {

struct FileStat {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    bool operator==(const FileStat&) const = default;
};

// Nullopt when the file does not exist.
std::optional<FileStat> stat_file(const std::filesystem::path& p);
std::optional<FileStat> stat_file(const char* p);
// `p` relative to the directory `dir_fd` (absolute paths ignore it): the
// kernel walks fewer path components than for the absolute path.
std::optional<FileStat> stat_file_at(int dir_fd, const char* p);

struct OutputRecord {
    std::string path; // relative to the project root when inside it
    Hash128 hash;
    FileStat st;      // as written: an output whose stat still matches was not edited
};

struct ActionRecord {
    std::string job, input;   // input: path relative to the root, or "*" for a gather
    Hash128 key;              // zero = last run failed
    Hash128 input_hash, params_hash;
    std::string tools;        // "name@version#binhash;…" of plugins the action used
    std::vector<OutputRecord> outputs;
    std::string status;       // "built" or "failed"
    double duration_ms = 0;
    std::string error;
};

class StateStore {
public:
    // Opens (creating) <dir>/state.db. Throws std::runtime_error.
    explicit StateStore(const std::filesystem::path& dir);
    ~StateStore();
    StateStore(const StateStore&) = delete;
    StateStore& operator=(const StateStore&) = delete;

    // Content hash through the stat cache: reads the file only when its
    // (size, mtime, inode) differ from the cached ones. Throws on I/O errors.
    Hash128 file_hash(const std::string& rel, const std::filesystem::path& abs);
    Hash128 file_hash(const std::string& rel, const std::filesystem::path& abs, const FileStat& st);
    Hash128 file_hash(const std::string& rel, const char* abs, const FileStat& st);
    // Records a file just written with known contents.
    void remember_file(const std::string& rel, const FileStat& st, const Hash128& hash);
    void forget_file(const std::string& rel);

    // Shared and immutable: a no-op build looks up every action without copying it.
    std::shared_ptr<const ActionRecord> action(const std::string& job, const std::string& input) const;
    std::vector<std::shared_ptr<const ActionRecord>> actions_of(const std::string& job) const; // by input
    std::vector<ActionRecord> all_actions() const;
    void put_action(const ActionRecord& rec);
    void erase_action(const std::string& job, const std::string& input);

    // Commits queued changes in one transaction. Also called automatically
    // when the queue grows or a batch has waited long enough.
    void flush();
    // Commits and closes the database; lookups still answer from memory.
    void close();

private:
    void maybe_flush_locked();
    void flush_locked();

    sqlite3* db_ = nullptr;
    mutable std::mutex mu_;
    struct CachedFile {
        FileStat st;
        Hash128 hash;
    };
    std::unordered_map<std::string, CachedFile> files_;
    static std::string action_key(const std::string& job, const std::string& input) { return job + '\0' + input; }
    std::unordered_map<std::string, std::shared_ptr<const ActionRecord>> actions_;
    std::map<std::string, std::optional<CachedFile>> dirty_files_;
    std::map<std::pair<std::string, std::string>, std::optional<ActionRecord>> dirty_actions_;
    std::chrono::steady_clock::time_point last_flush_;
};

} // namespace af::engine
