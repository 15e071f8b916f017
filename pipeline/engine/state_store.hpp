// The build state in .assetforge/state.db (SQLite, WAL): a stat cache that
// lets a no-op build avoid reading files, and one record per action.
// Loaded whole at start; changes are queued and committed in batches, so a
// killed build loses at most the last batch (those actions just run again).
//
// Records are owned by a configuration: the pipeline file and the values of
// its variables. Several configurations may share one state (one output
// root); a build sees its own records as its actions and the others' only
// as outputs it must not remove.
#pragma once

#include "core/content_hash.hpp"

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

struct sqlite3;

namespace af::engine {

struct FileStat {
    uint64_t size = 0;
    int64_t mtime_ns = 0;
    uint64_t inode = 0;
    // A copy that keeps times (`cp -p`, `rsync -t`, an archive's extraction) over a same-size file leaves size,
    // mtime and inode as they were; the change time is the one the kernel moves and no one can set back.
    int64_t ctime_ns = 0;
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
    FileStat st; // as written: an output whose stat still matches was not edited
};

struct ActionRecord {
    std::string owner;      // configuration id; empty in put_action: the store's own
    std::string job, input; // input: path relative to the root, or "*" for a gather
    Hash128 key;            // zero = last run failed
    Hash128 input_hash, params_hash;
    std::string tools; // "name@version#binhash;…" of plugins the action used
    std::vector<OutputRecord> outputs;
    // What the last run of the action ended as; text ("built"/"failed") only in the database.
    enum class Status : uint8_t { Built, Failed } status = Status::Built;
    double duration_ms = 0;
    std::string error;
    // What the action discarded (alpha, a channel, bit depth), as it said when
    // it wrote these outputs: an up-to-date action reports them again.
    std::vector<std::string> warnings;
    // False for records of a state from before warnings were kept: whether
    // the action discarded anything is not known (--warnings-as-errors runs it again).
    bool warnings_known = true;
};

struct Configuration {
    std::string id;          // hash of the pipeline file's path and its variable values
    std::string description; // "pipeline.yaml (out=build, src=modA)"
};

class StateStore {
  public:
    enum class Mode { ReadWrite, ReadOnly };
    // Opens (creating, in ReadWrite) <dir>/state.db for configuration `self`.
    // A damaged database is moved aside and replaced by an empty one
    // (recovered_note() says so); ReadOnly never writes, and a missing or
    // unreadable database is an empty state. Throws std::runtime_error only
    // when the folder or a fresh database cannot be created.
    explicit StateStore(const std::filesystem::path& dir, Configuration self = {}, Mode mode = Mode::ReadWrite);
    // A state that lives in memory alone (a database of its own, empty at
    // first): a build on a MemoryDisk touches no file.
    struct InMemory {};
    StateStore(InMemory, Configuration self);
    ~StateStore();
    StateStore(const StateStore&) = delete;
    StateStore& operator=(const StateStore&) = delete;

    // Content hash through the stat cache: reads the file only when its
    // (size, mtime, inode) differ from the cached ones. Throws on I/O errors.
    Hash128 file_hash(const std::string& rel, const std::filesystem::path& abs);
    Hash128 file_hash(const std::string& rel, const std::filesystem::path& abs, const FileStat& st);
    Hash128 file_hash(const std::string& rel, const char* abs, const FileStat& st);
    // `read_hash` computes the hash when the cache does not hold it (a Disk's own hash).
    Hash128 file_hash(const std::string& rel, const FileStat& st, const std::function<Hash128()>& read_hash);
    // Records a file just written with known contents.
    void remember_file(const std::string& rel, const FileStat& st, const Hash128& hash);
    void forget_file(const std::string& rel);

    // Shared and immutable: a no-op build looks up every action without copying it.
    // These three see this configuration's records only.
    std::shared_ptr<const ActionRecord> action(const std::string& job, const std::string& input) const;
    // Any configuration's record (`owner` empty: this configuration's).
    std::shared_ptr<const ActionRecord> action(const std::string& job, const std::string& input,
                                               const std::string& owner) const;
    // By input; only those `keep` accepts (all when empty), chosen before sorting: a build asks for the few of
    // its thousands that went stale.
    std::vector<std::shared_ptr<const ActionRecord>>
    actions_of(const std::string& job, const std::function<bool(const ActionRecord&)>& keep = {}) const;
    std::vector<ActionRecord> all_actions() const;
    // Every configuration's records, and the configurations by id.
    std::vector<ActionRecord> every_action() const;
    std::map<std::string, std::string> configurations() const;
    // Every configuration's records without copying them (the store is locked meanwhile).
    void for_each_action(const std::function<void(const ActionRecord&)>& fn) const;
    void put_action(const ActionRecord& rec);
    void erase_action(const std::string& job, const std::string& input, const std::string& owner = "");

    const std::string& self() const { return self_.id; }
    // Non-empty when a damaged database was moved aside on opening.
    const std::string& recovered_note() const { return recovered_; }

    // Commits queued changes in one transaction. Also called automatically
    // when the queue grows or a batch has waited long enough.
    void flush();
    // Commits and closes the database; lookups still answer from memory.
    void close();
    // Whether what is loaded may no longer be what the database holds: another
    // process committed to it since it was loaded (SQLite's data_version), or
    // the file at `dir`/state.db is no longer the one opened (moved aside,
    // removed). A process that keeps the store between builds (`watch`) asks
    // before each build and loads again when true. True when closed.
    bool stale() const;

  private:
    void open_and_load(const std::filesystem::path& file);
    void open_database(const std::filesystem::path& file);
    void remember_identity(const std::filesystem::path& file);
    // What a read-only store finds in an older layout it reads as it is.
    struct Layout {
        bool warnings = true; // actions.warnings (schema 5)
        bool ctimes = true;   // change times of files and outputs (schema 6)
    };
    // The schema as this version writes it; false when a read-only store
    // finds another layout (nothing to show).
    bool bring_schema_up_to_date(Layout& layout);
    // Through a connection of its own to `file`, or through `db`.
    void load_files(const std::filesystem::path& file, bool ctimes);
    void load_files(sqlite3* db, bool ctimes);
    void load_configurations();
    void load_actions(const Layout& layout);
    void keep_loaded(ActionRecord r);
    void maybe_flush_locked();
    void flush_locked();

    sqlite3* db_ = nullptr;
    std::filesystem::path file_; // "" in memory
    uint64_t file_inode_ = 0, file_dev_ = 0;
    int64_t data_version_ = 0;
    Configuration self_;
    Mode mode_;
    std::string recovered_;
    std::map<std::string, std::string> configurations_;
    // Shared for lookups: a no-op build is thousands of them from every thread, and nothing but lookups.
    mutable std::shared_mutex mu_;
    struct CachedFile {
        FileStat st;
        Hash128 hash;
    };
    std::unordered_map<std::string, CachedFile> files_;
    static std::string action_key(const std::string& job, const std::string& input) { return job + '\0' + input; }
    std::unordered_map<std::string, std::shared_ptr<const ActionRecord>> actions_; // own, by job\0input
    std::map<std::tuple<std::string, std::string, std::string>, std::shared_ptr<const ActionRecord>> foreign_;
    std::map<std::string, std::optional<CachedFile>> dirty_files_;
    std::map<std::tuple<std::string, std::string, std::string>, std::optional<ActionRecord>> dirty_actions_;
    bool dirty_self_ = false; // the configurations row of `self_` still to be written
    std::chrono::steady_clock::time_point last_flush_;
};

} // namespace af::engine
