#include "engine/state_store.hpp"

#include <sqlite3.h>
#include <fcntl.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

std::optional<FileStat> stat_file(const fs::path& p) { return stat_file(p.c_str()); }

std::optional<FileStat> stat_file(const char* p) { return stat_file_at(AT_FDCWD, p); }

std::optional<FileStat> stat_file_at(int dir_fd, const char* p) {
    struct stat st;
    if (::fstatat(dir_fd, p, &st, 0) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return FileStat{uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    uint64_t(st.st_ino)};
}

namespace {

constexpr int kSchemaVersion = 3;

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
        if (sqlite3_prepare_v2(db, sql, -1, &s, nullptr) != SQLITE_OK)
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

// Per output: hash, size, mtime_ns, inode, u32 path length, path.
constexpr size_t kOutputFixed = 16 + 8 + 8 + 8 + 4;

std::string outputs_blob(const std::vector<OutputRecord>& outs) {
    std::string s;
    for (const auto& o : outs) {
        put_hash(s, o.hash);
        put_u64(s, o.st.size);
        put_u64(s, uint64_t(o.st.mtime_ns));
        put_u64(s, o.st.inode);
        put_u64(s, o.path.size(), 4);
        s.append(o.path);
    }
    return s;
}

// A malformed blob (a damaged database) yields the entries before the damage;
// missing outputs only make the action run again.
std::vector<OutputRecord> outputs_from(const unsigned char* p, size_t size) {
    std::vector<OutputRecord> v;
    size_t pos = 0;
    while (size - pos >= kOutputFixed) {
        const unsigned char* e = p + pos;
        size_t n = size_t(get_u64(e + 40, 4));
        if (n > size - pos - kOutputFixed) break;
        v.push_back({std::string(reinterpret_cast<const char*>(e + kOutputFixed), n), get_hash(e),
                     FileStat{get_u64(e + 16), int64_t(get_u64(e + 24)), get_u64(e + 32)}});
        pos += kOutputFixed + n;
    }
    return v;
}

size_t row_count(sqlite3* db, const char* table);

size_t row_count(sqlite3* db, const char* table) {
    Stmt q(db, (std::string("SELECT count(*) FROM ") + table).c_str());
    return sqlite3_step(q.s) == SQLITE_ROW ? size_t(sqlite3_column_int64(q.s, 0)) : 0;
}

} // namespace

StateStore::StateStore(const fs::path& dir) {
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) throw std::runtime_error(dir.string() + ": cannot create state directory: " + ec.message());
    fs::path file = dir / "state.db";
    if (sqlite3_open_v2(file.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
                        nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "cannot open";
        sqlite3_close(db_);
        db_ = nullptr;
        throw std::runtime_error(file.string() + ": " + msg);
    }
    sqlite3_busy_timeout(db_, 5000);
    exec(db_, "PRAGMA journal_mode=WAL");
    exec(db_, "PRAGMA synchronous=NORMAL");
    int version = 0;
    {
        Stmt q(db_, "PRAGMA user_version");
        if (sqlite3_step(q.s) == SQLITE_ROW) version = sqlite3_column_int(q.s, 0);
    }
    if (version != kSchemaVersion) {
        // Older or newer layout: the state is only a cache of work done, so start over.
        exec(db_, "DROP TABLE IF EXISTS files; DROP TABLE IF EXISTS actions;");
        exec(db_, "CREATE TABLE files(path TEXT PRIMARY KEY, size INTEGER, mtime_ns INTEGER, inode INTEGER, "
                  "hash BLOB) WITHOUT ROWID");
        exec(db_, "CREATE TABLE actions(job TEXT, input TEXT, key BLOB, input_hash BLOB, params_hash BLOB, "
                  "tools TEXT, outputs BLOB, status TEXT, duration_ms REAL, error TEXT, PRIMARY KEY(job, input)) "
                  "WITHOUT ROWID");
        exec(db_, ("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
    }
    files_.reserve(row_count(db_, "files"));
    actions_.reserve(row_count(db_, "actions"));
    {
        Stmt q(db_, "SELECT path, size, mtime_ns, inode, hash FROM files");
        while (sqlite3_step(q.s) == SQLITE_ROW)
            files_.emplace(q.text(0), CachedFile{{uint64_t(sqlite3_column_int64(q.s, 1)), sqlite3_column_int64(q.s, 2),
                                                  uint64_t(sqlite3_column_int64(q.s, 3))},
                                                 hash_column(q.s, 4)});
    }
    {
        Stmt q(db_, "SELECT job, input, key, input_hash, params_hash, tools, outputs, status, duration_ms, error "
                    "FROM actions");
        while (sqlite3_step(q.s) == SQLITE_ROW) {
            ActionRecord r;
            r.job = q.text(0);
            r.input = q.text(1);
            r.key = hash_column(q.s, 2);
            r.input_hash = hash_column(q.s, 3);
            r.params_hash = hash_column(q.s, 4);
            r.tools = q.text(5);
            if (auto p = static_cast<const unsigned char*>(sqlite3_column_blob(q.s, 6)))
                r.outputs = outputs_from(p, size_t(sqlite3_column_bytes(q.s, 6)));
            r.status = q.text(7);
            r.duration_ms = sqlite3_column_double(q.s, 8);
            r.error = q.text(9);
            std::string k = action_key(r.job, r.input);
            actions_.emplace(std::move(k), std::make_shared<const ActionRecord>(std::move(r)));
        }
    }
    last_flush_ = std::chrono::steady_clock::now();
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
    {
        std::lock_guard lk(mu_);
        auto it = files_.find(rel);
        if (it != files_.end() && it->second.st == st) return it->second.hash;
    }
    Hash128 h = hash_file(fs::path(abs));
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
    std::string k = action_key(job, input);
    std::lock_guard lk(mu_);
    auto it = actions_.find(k);
    if (it == actions_.end()) return nullptr;
    return it->second;
}

std::vector<std::shared_ptr<const ActionRecord>> StateStore::actions_of(const std::string& job) const {
    std::lock_guard lk(mu_);
    std::vector<std::shared_ptr<const ActionRecord>> v;
    for (const auto& [_, r] : actions_)
        if (r->job == job) v.push_back(r);
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a->input < b->input; });
    return v;
}

std::vector<ActionRecord> StateStore::all_actions() const {
    std::lock_guard lk(mu_);
    std::vector<ActionRecord> v;
    for (const auto& [_, r] : actions_) v.push_back(*r);
    return v;
}

void StateStore::put_action(const ActionRecord& rec) {
    std::lock_guard lk(mu_);
    actions_[action_key(rec.job, rec.input)] = std::make_shared<const ActionRecord>(rec);
    dirty_actions_[{rec.job, rec.input}] = rec;
    maybe_flush_locked();
}

void StateStore::erase_action(const std::string& job, const std::string& input) {
    std::lock_guard lk(mu_);
    actions_.erase(action_key(job, input));
    dirty_actions_[{job, input}] = std::nullopt;
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
    if (!db_) throw std::runtime_error("state database: used after close");
    if (dirty_files_.empty() && dirty_actions_.empty()) return;
    exec(db_, "BEGIN");
    try {
        Stmt put_f(db_, "INSERT OR REPLACE INTO files VALUES(?,?,?,?,?)");
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
            }
            if (sqlite3_step(s) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
        }
        Stmt put_a(db_, "INSERT OR REPLACE INTO actions VALUES(?,?,?,?,?,?,?,?,?,?)");
        Stmt del_a(db_, "DELETE FROM actions WHERE job=? AND input=?");
        for (const auto& [k, r] : dirty_actions_) {
            sqlite3_stmt* s = r ? put_a.s : del_a.s;
            sqlite3_reset(s);
            sqlite3_bind_text(s, 1, k.first.c_str(), -1, SQLITE_TRANSIENT);
            sqlite3_bind_text(s, 2, k.second.c_str(), -1, SQLITE_TRANSIENT);
            if (r) {
                bind_hash(s, 3, r->key);
                bind_hash(s, 4, r->input_hash);
                bind_hash(s, 5, r->params_hash);
                sqlite3_bind_text(s, 6, r->tools.c_str(), -1, SQLITE_TRANSIENT);
                std::string outs = outputs_blob(r->outputs);
                sqlite3_bind_blob(s, 7, outs.data(), int(outs.size()), SQLITE_TRANSIENT);
                sqlite3_bind_text(s, 8, r->status.c_str(), -1, SQLITE_TRANSIENT);
                sqlite3_bind_double(s, 9, r->duration_ms);
                sqlite3_bind_text(s, 10, r->error.c_str(), -1, SQLITE_TRANSIENT);
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
}

} // namespace af::engine
