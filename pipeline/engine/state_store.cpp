#include "engine/state_store.hpp"

#include <fcntl.h>
#include <nlohmann/json.hpp>
#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <stdexcept>
#include <thread>
#include <tuple>

namespace af::engine {
namespace fs = std::filesystem;

std::optional<FileStat> stat_file(const fs::path& p) { return stat_file(p.c_str()); }

std::optional<FileStat> stat_file(const char* p) { return stat_file_at(AT_FDCWD, p); }

std::optional<FileStat> stat_file_at(int dir_fd, const char* p) {
    struct stat st;
    if (::fstatat(dir_fd, p, &st, 0) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return FileStat{uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    uint64_t(st.st_ino), int64_t(st.st_ctim.tv_sec) * 1000000000 + st.st_ctim.tv_nsec};
}

namespace {

constexpr int kSchemaVersion = 6; // 5: actions.warnings; 6: change times of files and outputs

// Errors that mean the file is not (or no longer) a sound database, as
// opposed to a folder we may not write or a disk that is full.
struct Damaged : std::runtime_error {
    using std::runtime_error::runtime_error;
};

bool damage_code(int rc) {
    switch (rc & 0xff) {
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
    case SQLITE_FORMAT:
    case SQLITE_ERROR: // a schema that does not say what its version promises
    case SQLITE_MISMATCH:
    case SQLITE_RANGE:
        return true;
    default:
        return false;
    }
}

void exec(sqlite3* db, const char* sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql, nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : "unknown error";
        sqlite3_free(err);
        throw std::runtime_error(std::string("state database: ") + msg + " (in: " + sql + ")");
    }
}

struct Stmt {
    sqlite3_stmt* s = nullptr;
    Stmt(sqlite3* db, const char* sql) {
        int rc = sqlite3_prepare_v2(db, sql, -1, &s, nullptr);
        if (rc == SQLITE_OK) return;
        if (damage_code(rc)) throw Damaged(sqlite3_errmsg(db));
        throw std::runtime_error(std::string("state database: ") + sqlite3_errmsg(db));
    }
    ~Stmt() { sqlite3_finalize(s); }
    std::string text(int i) const {
        auto p = sqlite3_column_text(s, i);
        return p ? reinterpret_cast<const char*>(p) : "";
    }
};

// Hashes are 16-byte little-endian blobs and outputs one blob of
// (hash, u32 length, path) entries: loading 10,000s of actions at the start of
// every build parses no text.
void put_hash(std::string& out, const Hash128& h) {
    for (int i = 0; i < 8; ++i) out.push_back(char((h.lo >> (8 * i)) & 0xff));
    for (int i = 0; i < 8; ++i) out.push_back(char((h.hi >> (8 * i)) & 0xff));
}

Hash128 get_hash(const unsigned char* p) {
    Hash128 h;
    for (int i = 7; i >= 0; --i) h.lo = (h.lo << 8) | p[i];
    for (int i = 7; i >= 0; --i) h.hi = (h.hi << 8) | p[8 + i];
    return h;
}

Hash128 hash_column(sqlite3_stmt* s, int i) {
    const void* p = sqlite3_column_blob(s, i);
    if (!p || sqlite3_column_bytes(s, i) != 16) return {}; // zero: treated as "failed last time"
    return get_hash(static_cast<const unsigned char*>(p));
}

void bind_hash(sqlite3_stmt* s, int i, const Hash128& h) {
    std::string b;
    put_hash(b, h);
    sqlite3_bind_blob(s, i, b.data(), int(b.size()), SQLITE_TRANSIENT);
}

void put_u64(std::string& out, uint64_t v, int bytes = 8) {
    for (int i = 0; i < bytes; ++i) out.push_back(char((v >> (8 * i)) & 0xff));
}

uint64_t get_u64(const unsigned char* p, int bytes = 8) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
    return v;
}

// Per output: hash, size, mtime_ns, inode, ctime_ns, u32 path length, path. Before schema 6 there was no
// ctime_ns: such a record's outputs read with ctime 0, which only makes the next check hash them once.
constexpr size_t kOutputFixed = 16 + 8 + 8 + 8 + 8 + 4;
constexpr size_t kOutputFixedV5 = kOutputFixed - 8;

std::string outputs_blob(const std::vector<OutputRecord>& outs) {
    std::string s;
    for (const auto& o : outs) {
        put_hash(s, o.hash);
        put_u64(s, o.st.size);
        put_u64(s, uint64_t(o.st.mtime_ns));
        put_u64(s, o.st.inode);
        put_u64(s, uint64_t(o.st.ctime_ns));
        put_u64(s, o.path.size(), 4);
        s.append(o.path);
    }
    return s;
}

// A malformed blob (a damaged database) yields the entries before the damage;
// missing outputs only make the action run again.
std::vector<OutputRecord> outputs_from(const unsigned char* p, size_t size, bool ctimes) {
    const size_t fixed = ctimes ? kOutputFixed : kOutputFixedV5;
    std::vector<OutputRecord> v;
    size_t pos = 0;
    while (size - pos >= fixed) {
        const unsigned char* e = p + pos;
        size_t n = size_t(get_u64(e + fixed - 4, 4));
        if (n > size - pos - fixed) break;
        v.push_back({std::string(reinterpret_cast<const char*>(e + fixed), n), get_hash(e),
                     FileStat{get_u64(e + 16), int64_t(get_u64(e + 24)), get_u64(e + 32),
                              ctimes ? int64_t(get_u64(e + 40)) : 0}});
        pos += fixed + n;
    }
    return v;
}

// Warnings as a JSON array of strings; '' when there are none (most actions).
std::string warnings_text(const std::vector<std::string>& w) {
    return w.empty() ? std::string() : nlohmann::json(w).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// A damaged value loses the warnings only, never the record.
std::vector<std::string> warnings_from(const std::string& text) {
    std::vector<std::string> v;
    if (text.empty()) return v;
    auto j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_array())
        for (const auto& w : j)
            if (w.is_string()) v.push_back(w.get<std::string>());
    return v;
}

size_t row_count(sqlite3* db, const char* table);
int64_t pragma_int(sqlite3* db, const char* sql);

int64_t pragma_int(sqlite3* db, const char* sql) {
    Stmt q(db, sql);
    if (sqlite3_step(q.s) != SQLITE_ROW) throw std::runtime_error(std::string("state database: ") + sqlite3_errmsg(db));
    return sqlite3_column_int64(q.s, 0);
}

size_t row_count(sqlite3* db, const char* table) {
    Stmt q(db, (std::string("SELECT count(*) FROM ") + table).c_str());
    return sqlite3_step(q.s) == SQLITE_ROW ? size_t(sqlite3_column_int64(q.s, 0)) : 0;
}

} // namespace

namespace {

void checked_exec(sqlite3* db, const char* sql) {
    char* err = nullptr;
    int rc = sqlite3_exec(db, sql, nullptr, nullptr, &err);
    if (rc == SQLITE_OK) return;
    std::string msg = err ? err : sqlite3_errstr(rc);
    sqlite3_free(err);
    if (damage_code(rc)) throw Damaged(msg);
    throw std::runtime_error(std::string("state database: ") + msg);
}

void create_schema(sqlite3* db) {
    checked_exec(db, "CREATE TABLE IF NOT EXISTS files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, "
                     "inode INTEGER, hash BLOB, ctime_ns INTEGER DEFAULT 0) WITHOUT ROWID");
    checked_exec(db, "CREATE TABLE IF NOT EXISTS configurations(id TEXT PRIMARY KEY, description TEXT) WITHOUT ROWID");
    checked_exec(db, "CREATE TABLE IF NOT EXISTS actions(owner TEXT, job TEXT, input TEXT, key BLOB, input_hash BLOB, "
                     "params_hash BLOB, tools TEXT, outputs BLOB, status TEXT, duration_ms REAL, error TEXT, "
                     "warnings TEXT, PRIMARY KEY(owner, job, input)) WITHOUT ROWID");
}

std::string timestamp() {
    char buf[32];
    std::time_t t = std::time(nullptr);
    std::tm tm{};
    gmtime_r(&t, &tm);
    std::strftime(buf, sizeof buf, "%Y%m%d-%H%M%S", &tm);
    return buf;
}

} // namespace

StateStore::StateStore(const fs::path& dir, Configuration self, Mode mode) : self_(std::move(self)), mode_(mode) {
    fs::path file = dir / "state.db";
    std::error_code ec;
    if (mode_ == Mode::ReadOnly) {
        // `status` must never block or change anything: no database yet, or
        // one it cannot read, is simply an empty state.
        if (!fs::exists(file, ec)) return;
        try {
            open_and_load(file);
        } catch (const std::exception& e) {
            if (db_) sqlite3_close(db_);
            db_ = nullptr;
            files_.clear();
            actions_.clear();
            foreign_.clear();
            recovered_ = file.string() + " could not be read (" + e.what() + "); showing an empty state";
        }
        return;
    }
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error(dir.string() + ": cannot create state directory: " + ec.message());
    try {
        open_and_load(file);
    } catch (const Damaged& e) {
        // The state is a record of work done, never the only copy of
        // anything: move the damaged file aside (for a bug report) and start
        // over. Outputs whose bytes are right are then re-recorded, not rewritten.
        if (db_) sqlite3_close(db_);
        db_ = nullptr;
        files_.clear();
        actions_.clear();
        foreign_.clear();
        configurations_.clear();
        fs::path aside = dir / ("state.db.damaged-" + timestamp());
        fs::rename(file, aside, ec);
        if (ec)
            throw std::runtime_error(file.string() + " is damaged (" + e.what() +
                                     ") and cannot be moved aside: " + ec.message());
        for (const char* side : {"-wal", "-shm"}) {
            fs::path f = dir / (std::string("state.db") + side);
            if (fs::exists(f, ec)) fs::rename(f, fs::path(aside.native() + side), ec);
        }
        recovered_ = "the build state " + file.string() + " was damaged (" + e.what() + "); moved it to " +
                     aside.string() + " and starting from an empty state";
        open_and_load(file);
    }
    last_flush_ = std::chrono::steady_clock::now();
}

StateStore::StateStore(InMemory, Configuration self) : self_(std::move(self)), mode_(Mode::ReadWrite) {
    open_and_load(":memory:");
    last_flush_ = std::chrono::steady_clock::now();
}

namespace {

// Calls `row` for each row of `q`; throws Damaged (or runtime_error) as the database fails.
template <class Row> void step_rows(sqlite3* db, Stmt& q, Row&& row) {
    for (;;) {
        int r = sqlite3_step(q.s);
        if (r == SQLITE_ROW)
            row();
        else if (r == SQLITE_DONE)
            return;
        else if (damage_code(r))
            throw Damaged(sqlite3_errmsg(db));
        else
            throw std::runtime_error(std::string("state database: ") + sqlite3_errmsg(db));
    }
}

} // namespace

void StateStore::open_and_load(const fs::path& file) {
    open_database(file);
    Layout layout;
    if (!bring_schema_up_to_date(layout)) return;
    // The stat cache and the records are about as many rows each: a second
    // connection reads the stat cache beside the records (the build lock keeps
    // other builds from writing meanwhile; `status` may read a newer stat cache,
    // which only saves it reading a file).
    // A small state is read faster on one connection than a second one opens.
    constexpr size_t kRowsWorthAConnection = 4096;
    std::exception_ptr files_error;
    std::thread files;
    if (file.native() != ":memory:" && row_count(db_, "files") >= kRowsWorthAConnection)
        files = std::thread([&] {
            try {
                load_files(file, layout.ctimes);
            } catch (...) {
                files_error = std::current_exception();
            }
        });
    else
        load_files(db_, layout.ctimes);
    try {
        actions_.reserve(row_count(db_, "actions"));
        load_configurations();
        load_actions(layout);
    } catch (...) {
        if (files.joinable()) files.join();
        throw;
    }
    if (files.joinable()) files.join();
    if (files_error) std::rethrow_exception(files_error);
    remember_identity(file);
}

void StateStore::remember_identity(const fs::path& file) {
    data_version_ = pragma_int(db_, "PRAGMA data_version");
    struct stat st {};
    if (file.native() != ":memory:" && ::stat(file.c_str(), &st) == 0) {
        file_ = file;
        file_inode_ = st.st_ino;
        file_dev_ = st.st_dev;
    }
}

bool StateStore::stale() const {
    std::unique_lock lk(mu_);
    if (!db_) return true;
    if (!file_.empty()) {
        struct stat st {};
        if (::stat(file_.c_str(), &st) != 0 || st.st_ino != file_inode_ || st.st_dev != file_dev_) return true;
    }
    try {
        return pragma_int(db_, "PRAGMA data_version") != data_version_;
    } catch (const std::exception&) {
        return true;
    }
}

void StateStore::open_database(const fs::path& file) {
    int flags = mode_ == Mode::ReadOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
    int rc = sqlite3_open_v2(file.c_str(), &db_, flags | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "cannot open";
        sqlite3_close(db_);
        db_ = nullptr;
        if (damage_code(rc)) throw Damaged(msg);
        throw std::runtime_error(file.string() + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    if (mode_ == Mode::ReadWrite) {
        checked_exec(db_, "PRAGMA journal_mode=WAL");
        checked_exec(db_, "PRAGMA synchronous=NORMAL");
    }
}

bool StateStore::bring_schema_up_to_date(Layout& layout) {
    int version = 0;
    {
        Stmt q(db_, "PRAGMA user_version");
        int rc = sqlite3_step(q.s);
        if (rc == SQLITE_ROW)
            version = sqlite3_column_int(q.s, 0);
        else if (damage_code(rc))
            throw Damaged(sqlite3_errmsg(db_));
    }
    if (mode_ == Mode::ReadOnly) {
        // `status` reads an older layout as it is (version 4 lacks the warnings, 5 the change times).
        layout.warnings = version >= 5;
        layout.ctimes = version >= 6;
        return version >= 4 && version <= kSchemaVersion; // another layout: nothing to show
    }
    if (version == kSchemaVersion) return true;
    if (version < 3 || version > kSchemaVersion) {
        // Older or newer layout: the state is only a cache of work done, so start over.
        checked_exec(db_, "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS actions; "
                          "DROP TABLE IF EXISTS configurations;");
        create_schema(db_);
        checked_exec(db_, ("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
        return true;
    }
    // Each step keeps the records valid; one transaction for all of them.
    checked_exec(db_, "BEGIN");
    if (version == 3) {
        // The layout before configurations: its records become the first
        // configuration's that opens it (see the owner '' adoption below).
        checked_exec(db_, "ALTER TABLE actions RENAME TO actions_v3");
        create_schema(db_); // the files table stays as it was: step 5 below adds its column
        checked_exec(db_, "INSERT INTO actions SELECT '', job, input, key, input_hash, params_hash, tools, outputs, "
                          "status, duration_ms, error, NULL FROM actions_v3");
        checked_exec(db_, "DROP TABLE actions_v3");
        version = 5;
    }
    if (version == 4) {
        // Its warnings are NULL, not known (see ActionRecord::warnings_known).
        checked_exec(db_, "ALTER TABLE actions ADD COLUMN warnings TEXT");
        version = 5;
    }
    if (version == 5) {
        // Change times: 0 for what was cached, so each file and output is hashed once more, never rebuilt for it.
        checked_exec(db_, "ALTER TABLE files ADD COLUMN ctime_ns INTEGER DEFAULT 0");
        std::vector<std::tuple<std::string, std::string, std::string, std::string>> rewritten;
        {
            Stmt q(db_, "SELECT owner, job, input, outputs FROM actions WHERE outputs IS NOT NULL");
            step_rows(db_, q, [&] {
                const auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(q.s, 3));
                const size_t n = size_t(sqlite3_column_bytes(q.s, 3));
                rewritten.emplace_back(q.text(0), q.text(1), q.text(2),
                                       p ? outputs_blob(outputs_from(p, n, false)) : std::string());
            });
        }
        Stmt put(db_, "UPDATE actions SET outputs=? WHERE owner=? AND job=? AND input=?");
        for (const auto& [owner, job, input, blob] : rewritten) {
            sqlite3_reset(put.s);
            sqlite3_bind_blob(put.s, 1, blob.data(), int(blob.size()), SQLITE_TRANSIENT);
            sqlite3_bind_text(put.s, 2, owner.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(put.s, 3, job.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(put.s, 4, input.c_str(), -1, SQLITE_TRANSIENT);
            if (sqlite3_step(put.s) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
        }
    }
    checked_exec(db_, ("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
    checked_exec(db_, "COMMIT");
    return true;
}

void StateStore::load_files(const fs::path& file, bool ctimes) {
    sqlite3* db = nullptr;
    const int rc = sqlite3_open_v2(file.c_str(), &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX, nullptr);
    struct Closer {
        sqlite3* db;
        ~Closer() { sqlite3_close(db); }
    } closer{db};
    if (rc != SQLITE_OK) {
        const std::string msg = db ? sqlite3_errmsg(db) : "cannot open";
        if (damage_code(rc)) throw Damaged(msg);
        throw std::runtime_error(file.string() + ": " + msg);
    }
    sqlite3_busy_timeout(db, 5000);
    load_files(db, ctimes);
}

void StateStore::load_files(sqlite3* db, bool ctimes) {
    files_.reserve(row_count(db, "files"));
    Stmt q(db, ctimes ? "SELECT path, size, mtime_ns, inode, hash, ctime_ns FROM files"
                      : "SELECT path, size, mtime_ns, inode, hash, 0 FROM files");
    step_rows(db, q, [&] {
        files_.emplace(q.text(0), CachedFile{{uint64_t(sqlite3_column_int64(q.s, 1)), sqlite3_column_int64(q.s, 2),
                                              uint64_t(sqlite3_column_int64(q.s, 3)), sqlite3_column_int64(q.s, 5)},
                                             hash_column(q.s, 4)});
    });
}

void StateStore::load_configurations() {
    Stmt q(db_, "SELECT id, description FROM configurations");
    step_rows(db_, q, [&] { configurations_[q.text(0)] = q.text(1); });
    if (!self_.id.empty() && configurations_[self_.id] != self_.description) {
        configurations_[self_.id] = self_.description;
        dirty_self_ = mode_ == Mode::ReadWrite;
    }
}

void StateStore::load_actions(const Layout& layout) {
    Stmt q(db_, (std::string("SELECT owner, job, input, key, input_hash, params_hash, tools, outputs, status, "
                             "duration_ms, error, ") +
                 (layout.warnings ? "warnings" : "NULL") + " FROM actions")
                    .c_str());
    step_rows(db_, q, [&] {
        ActionRecord r;
        r.owner = q.text(0);
        r.job = q.text(1);
        r.input = q.text(2);
        r.key = hash_column(q.s, 3);
        r.input_hash = hash_column(q.s, 4);
        r.params_hash = hash_column(q.s, 5);
        r.tools = q.text(6);
        if (auto p = static_cast<const unsigned char*>(sqlite3_column_blob(q.s, 7)))
            r.outputs = outputs_from(p, size_t(sqlite3_column_bytes(q.s, 7)), layout.ctimes);
        r.status = q.text(8) == "failed" ? ActionRecord::Status::Failed : ActionRecord::Status::Built;
        r.duration_ms = sqlite3_column_double(q.s, 9);
        r.error = q.text(10);
        r.warnings_known = sqlite3_column_type(q.s, 11) != SQLITE_NULL;
        r.warnings = warnings_from(q.text(11));
        keep_loaded(std::move(r));
    });
}

// A loaded record, as this configuration's or another's.
void StateStore::keep_loaded(ActionRecord r) {
    if (r.owner.empty() && !self_.id.empty()) {
        // Migrated from the layout before configurations: ours now.
        if (mode_ == Mode::ReadWrite) {
            dirty_actions_[{r.owner, r.job, r.input}] = std::nullopt;
            r.owner = self_.id;
            dirty_actions_[{r.owner, r.job, r.input}] = r;
        } else {
            r.owner = self_.id;
        }
    }
    if (r.owner == self_.id) {
        std::string k = action_key(r.job, r.input);
        actions_.emplace(std::move(k), std::make_shared<const ActionRecord>(std::move(r)));
    } else {
        std::tuple<std::string, std::string, std::string> k{r.owner, r.job, r.input};
        foreign_.emplace(std::move(k), std::make_shared<const ActionRecord>(std::move(r)));
    }
}

StateStore::~StateStore() { close(); }

void StateStore::close() {
    if (!db_) return;
    try {
        flush();
    } catch (...) {
        // Losing the last batch only makes the next build redo those actions.
    }
    sqlite3_close(db_);
    db_ = nullptr;
}

Hash128 StateStore::file_hash(const std::string& rel, const fs::path& abs) {
    auto st = stat_file(abs);
    if (!st) throw std::runtime_error(abs.string() + ": file not found");
    return file_hash(rel, abs, *st);
}

Hash128 StateStore::file_hash(const std::string& rel, const fs::path& abs, const FileStat& st) {
    return file_hash(rel, abs.c_str(), st);
}

Hash128 StateStore::file_hash(const std::string& rel, const char* abs, const FileStat& st) {
    return file_hash(rel, st, [abs] { return hash_file(fs::path(abs)); });
}

Hash128 StateStore::file_hash(const std::string& rel, const FileStat& st, const std::function<Hash128()>& read_hash) {
    {
        std::shared_lock lk(mu_);
        auto it = files_.find(rel);
        if (it != files_.end() && it->second.st == st) return it->second.hash;
    }
    Hash128 h = read_hash();
    remember_file(rel, st, h);
    return h;
}

void StateStore::remember_file(const std::string& rel, const FileStat& st, const Hash128& hash) {
    std::lock_guard lk(mu_);
    files_[rel] = {st, hash};
    dirty_files_[rel] = CachedFile{st, hash};
    maybe_flush_locked();
}

void StateStore::forget_file(const std::string& rel) {
    std::lock_guard lk(mu_);
    files_.erase(rel);
    dirty_files_[rel] = std::nullopt;
}

std::shared_ptr<const ActionRecord> StateStore::action(const std::string& job, const std::string& input) const {
    // A no-op build asks once per action from every thread: the key is built in a buffer each thread keeps.
    thread_local std::string k;
    k.assign(job);
    k.push_back('\0');
    k.append(input);
    std::shared_lock lk(mu_);
    auto it = actions_.find(k);
    if (it == actions_.end()) return nullptr;
    return it->second;
}

std::shared_ptr<const ActionRecord> StateStore::action(const std::string& job, const std::string& input,
                                                       const std::string& owner) const {
    if (owner.empty() || owner == self_.id) return action(job, input);
    std::shared_lock lk(mu_);
    auto it = foreign_.find({owner, job, input});
    return it == foreign_.end() ? nullptr : it->second;
}

std::vector<std::shared_ptr<const ActionRecord>>
StateStore::actions_of(const std::string& job, const std::function<bool(const ActionRecord&)>& keep) const {
    std::shared_lock lk(mu_);
    std::vector<std::shared_ptr<const ActionRecord>> v;
    for (const auto& [_, r] : actions_)
        if (r->job == job && (!keep || keep(*r))) v.push_back(r);
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a->input < b->input; });
    return v;
}

std::vector<ActionRecord> StateStore::all_actions() const {
    std::shared_lock lk(mu_);
    std::vector<ActionRecord> v;
    for (const auto& [_, r] : actions_) v.push_back(*r);
    return v;
}

std::vector<ActionRecord> StateStore::every_action() const {
    std::shared_lock lk(mu_);
    std::vector<ActionRecord> v;
    for (const auto& [_, r] : actions_) v.push_back(*r);
    for (const auto& [_, r] : foreign_) v.push_back(*r);
    return v;
}

void StateStore::for_each_action(const std::function<void(const ActionRecord&)>& fn) const {
    std::shared_lock lk(mu_);
    for (const auto& [_, r] : actions_) fn(*r);
    for (const auto& [_, r] : foreign_) fn(*r);
}

std::map<std::string, std::string> StateStore::configurations() const {
    std::shared_lock lk(mu_);
    return configurations_;
}

void StateStore::put_action(const ActionRecord& rec) {
    std::lock_guard lk(mu_);
    auto r = std::make_shared<ActionRecord>(rec);
    if (r->owner.empty()) r->owner = self_.id;
    if (r->owner == self_.id)
        actions_[action_key(r->job, r->input)] = r;
    else
        foreign_[{r->owner, r->job, r->input}] = r;
    dirty_actions_[{r->owner, r->job, r->input}] = *r;
    maybe_flush_locked();
}

void StateStore::erase_action(const std::string& job, const std::string& input, const std::string& owner) {
    std::lock_guard lk(mu_);
    const std::string& o = owner.empty() ? self_.id : owner;
    if (o == self_.id)
        actions_.erase(action_key(job, input));
    else
        foreign_.erase({o, job, input});
    dirty_actions_[{o, job, input}] = std::nullopt;
}

void StateStore::flush() {
    std::lock_guard lk(mu_);
    flush_locked();
}

void StateStore::maybe_flush_locked() {
    auto now = std::chrono::steady_clock::now();
    if (dirty_actions_.size() + dirty_files_.size() >= 2048 || now - last_flush_ > std::chrono::milliseconds(500))
        flush_locked();
}

void StateStore::flush_locked() {
    last_flush_ = std::chrono::steady_clock::now();
    if (mode_ == Mode::ReadOnly) {
        dirty_files_.clear();
        dirty_actions_.clear();
        return;
    }
    if (!db_) throw std::runtime_error("state database: used after close");
    if (dirty_files_.empty() && dirty_actions_.empty() && !dirty_self_) return;
    exec(db_, "BEGIN");
    try {
        if (dirty_self_) {
            Stmt put_c(db_, "INSERT OR REPLACE INTO configurations VALUES(?,?)");
            sqlite3_bind_text(put_c.s, 1, self_.id.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(put_c.s, 2, self_.description.c_str(), -1, SQLITE_TRANSIENT);
            if (sqlite3_step(put_c.s) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
        }
        Stmt put_f(db_,
                   "INSERT OR REPLACE INTO files(path, size, mtime_ns, inode, hash, ctime_ns) VALUES(?,?,?,?,?,?)");
        Stmt del_f(db_, "DELETE FROM files WHERE path=?");
        for (const auto& [path, f] : dirty_files_) {
            sqlite3_stmt* s = f ? put_f.s : del_f.s;
            sqlite3_reset(s);
            sqlite3_bind_text(s, 1, path.c_str(), -1, SQLITE_TRANSIENT);
            if (f) {
                sqlite3_bind_int64(s, 2, int64_t(f->st.size));
                sqlite3_bind_int64(s, 3, f->st.mtime_ns);
                sqlite3_bind_int64(s, 4, int64_t(f->st.inode));
                bind_hash(s, 5, f->hash);
                sqlite3_bind_int64(s, 6, f->st.ctime_ns);
            }
            if (sqlite3_step(s) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
        }
        Stmt put_a(db_, "INSERT OR REPLACE INTO actions VALUES(?,?,?,?,?,?,?,?,?,?,?,?)");
        Stmt del_a(db_, "DELETE FROM actions WHERE owner=? AND job=? AND input=?");
        for (const auto& [k, r] : dirty_actions_) {
            sqlite3_stmt* s = r ? put_a.s : del_a.s;
            sqlite3_reset(s);
            sqlite3_bind_text(s, 1, std::get<0>(k).c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 2, std::get<1>(k).c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 3, std::get<2>(k).c_str(), -1, SQLITE_TRANSIENT);
            if (r) {
                bind_hash(s, 4, r->key);
                bind_hash(s, 5, r->input_hash);
                bind_hash(s, 6, r->params_hash);
                sqlite3_bind_text(s, 7, r->tools.c_str(), -1, SQLITE_TRANSIENT);
                std::string outs = outputs_blob(r->outputs);
                sqlite3_bind_blob(s, 8, outs.data(), int(outs.size()), SQLITE_TRANSIENT);
                sqlite3_bind_text(s, 9, r->status == ActionRecord::Status::Failed ? "failed" : "built", -1,
                                  SQLITE_STATIC);
                sqlite3_bind_double(s, 10, r->duration_ms);
                sqlite3_bind_text(s, 11, r->error.c_str(), -1, SQLITE_TRANSIENT);
                if (r->warnings_known)
                    sqlite3_bind_text(s, 12, warnings_text(r->warnings).c_str(), -1, SQLITE_TRANSIENT);
                else
                    sqlite3_bind_null(s, 12);
            }
            if (sqlite3_step(s) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
        }
        exec(db_, "COMMIT");
    } catch (...) {
        sqlite3_exec(db_, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
    dirty_files_.clear();
    dirty_actions_.clear();
    dirty_self_ = false;
}

} // namespace af::engine
