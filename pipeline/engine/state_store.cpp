#include "engine/state_store.hpp"

#include <sqlite3.h>
#include <sys/stat.h>

#include <algorithm>
#include <stdexcept>

namespace af::engine {
namespace fs = std::filesystem;

std::optional<FileStat> stat_file(const fs::path& p) {
    struct stat st;
    if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return FileStat{uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec,
                    uint64_t(st.st_ino)};
}

namespace {

constexpr int kSchemaVersion = 2;

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

// One "hash path" line per output: cheap to parse for 10,000s of actions.
std::string outputs_text(const std::vector<OutputRecord>& outs) {
    std::string s;
    for (const auto& o : outs) s.append(o.hash.hex()).append(1, ' ').append(o.path).append(1, '\n');
    return s;
}

std::vector<OutputRecord> outputs_from(const std::string& s) {
    std::vector<OutputRecord> v;
    size_t pos = 0;
    while (pos + 33 < s.size()) {
        size_t nl = s.find('\n', pos);
        if (nl == std::string::npos) nl = s.size();
        v.push_back({s.substr(pos + 33, nl - pos - 33), Hash128::from_hex(std::string_view(s).substr(pos, 32))});
        pos = nl + 1;
    }
    return v;
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
                  "hash TEXT) WITHOUT ROWID");
        exec(db_, "CREATE TABLE actions(job TEXT, input TEXT, key TEXT, input_hash TEXT, params_hash TEXT, "
                  "tools TEXT, outputs TEXT, status TEXT, duration_ms REAL, error TEXT, PRIMARY KEY(job, input)) "
                  "WITHOUT ROWID");
        exec(db_, ("PRAGMA user_version=" + std::to_string(kSchemaVersion)).c_str());
    }
    {
        Stmt q(db_, "SELECT path, size, mtime_ns, inode, hash FROM files");
        while (sqlite3_step(q.s) == SQLITE_ROW)
            files_[q.text(0)] = {{uint64_t(sqlite3_column_int64(q.s, 1)), sqlite3_column_int64(q.s, 2),
                                  uint64_t(sqlite3_column_int64(q.s, 3))},
                                 Hash128::from_hex(q.text(4))};
    }
    {
        Stmt q(db_, "SELECT job, input, key, input_hash, params_hash, tools, outputs, status, duration_ms, error "
                    "FROM actions");
        while (sqlite3_step(q.s) == SQLITE_ROW) {
            ActionRecord r;
            r.job = q.text(0);
            r.input = q.text(1);
            r.key = Hash128::from_hex(q.text(2));
            r.input_hash = Hash128::from_hex(q.text(3));
            r.params_hash = Hash128::from_hex(q.text(4));
            r.tools = q.text(5);
            r.outputs = outputs_from(q.text(6));
            r.status = q.text(7);
            r.duration_ms = sqlite3_column_double(q.s, 8);
            r.error = q.text(9);
            std::string k = action_key(r.job, r.input);
            actions_[k] = std::make_shared<const ActionRecord>(std::move(r));
        }
    }
    last_flush_ = std::chrono::steady_clock::now();
}

StateStore::~StateStore() {
    try {
        flush();
    } catch (...) {
        // Losing the last batch only makes the next build redo those actions.
    }
    sqlite3_close(db_);
}

Hash128 StateStore::file_hash(const std::string& rel, const fs::path& abs) {
    auto st = stat_file(abs);
    if (!st) throw std::runtime_error(abs.string() + ": file not found");
    return file_hash(rel, abs, *st);
}

Hash128 StateStore::file_hash(const std::string& rel, const fs::path& abs, const FileStat& st) {
    {
        std::lock_guard lk(mu_);
        auto it = files_.find(rel);
        if (it != files_.end() && it->second.st == st) return it->second.hash;
    }
    Hash128 h = hash_file(abs);
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

std::vector<ActionRecord> StateStore::actions_of(const std::string& job) const {
    std::lock_guard lk(mu_);
    std::vector<ActionRecord> v;
    for (const auto& [_, r] : actions_)
        if (r->job == job) v.push_back(*r);
    std::sort(v.begin(), v.end(), [](auto& a, auto& b) { return a.input < b.input; });
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
                std::string h = f->hash.hex();
                sqlite3_bind_text(s, 5, h.c_str(), -1, SQLITE_TRANSIENT);
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
                sqlite3_bind_text(s, 3, r->key.hex().c_str(), -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(s, 4, r->input_hash.hex().c_str(), -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(s, 5, r->params_hash.hex().c_str(), -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(s, 6, r->tools.c_str(), -1, SQLITE_TRANSIENT);
                sqlite3_bind_text(s, 7, outputs_text(r->outputs).c_str(), -1, SQLITE_TRANSIENT);
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
