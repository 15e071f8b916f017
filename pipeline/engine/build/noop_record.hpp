// A no-op build answered from a record, as ninja answers one from its log:
// after a build that ran cleanly, the stat of every file and folder it
// depended on (pipeline, includes, plugins, the executable, every input,
// output and folder the globs listed, the state database) is written under
// a key of the command line, the working folder and the environment. The
// next `build` with the same key stats those paths before loading plugins,
// the pipeline or the state; when every one is as recorded, nothing can have
// changed and the build is up to date. Any difference, or any doubt, and the
// build runs as always (and writes the record again if it ends cleanly).
//
// A stat can vouch for a file only if the file was not changed again within
// the same timestamp tick after it was looked at ("racily clean", as git
// calls it): a path whose mtime or ctime is not older than the build's start
// is not recorded, and the record is not written at all. ctime, which no
// program can set back, is compared with the rest.
//
// A record is as good as the folder it lies in: anyone who can write there
// can make a build say "up to date". Records are read and written only in
// folders of the user's own that group and others cannot write (from the
// cache root down), and only files of the user's own that no one else can
// read or write are believed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace af::engine {

// The real-time clock's coarse reading: what file timestamps are taken from.
int64_t coarse_now_ns();

// Hex key of this command line: argv, the working folder, the environment
// (less variables that change from one shell to the next, which the record
// checks when the pipeline read them: NoopFacts::env) and which of
// stdin/stdout/stderr are terminals.
std::string noop_key(int argc, const char* const* argv);

// Where the record for `key` lives (the user's cache folder); empty when
// there is none, or ASSETFORGE_NOOP_RECORDS=off.
std::filesystem::path noop_record_file(const std::string& key);

// What a clean build depended on, for the record.
struct NoopFacts {
    std::vector<std::string> files;  // absolute; must exist
    std::vector<std::string> dirs;   // absolute; folders whose listing the build used
    std::vector<std::string> absent; // absolute; looked up and not found
    std::vector<std::pair<std::string, std::optional<std::string>>> env; // read by the pipeline (nullopt: unset)
    std::filesystem::path state_dir;
    size_t actions = 0; // all up to date next time
    bool quiet = false;
};

// Writes the record atomically, or removes it when a path is missing, of the
// wrong kind, or not older than `started_ns` (unless `trust_racy`: tests).
// Returns whether it was written; `distrust` says why not when a folder on
// the way is not the user's alone.
bool write_noop_record(const std::filesystem::path& file, const NoopFacts& facts, int64_t started_ns,
                       bool trust_racy = false, std::string* distrust = nullptr);
void forget_noop_record(const std::filesystem::path& file);

struct NoopRecord {
    std::filesystem::path state_dir;
    size_t actions = 0;
    bool quiet = false;
    // Each variable the pipeline read and a hash of its value (not the value: it may be a secret).
    std::vector<std::pair<std::string, std::string>> env;
    struct Entry {
        std::string path;
        uint8_t kind = 0; // 0 file, 1 folder, 2 absent
        uint64_t size = 0, inode = 0, dev = 0;
        int64_t mtime_ns = 0, ctime_ns = 0;
        uint32_t mode = 0;
        bool operator==(const Entry&) const = default;
    };
    std::vector<Entry> entries;
};

// Nullopt when there is none, it is damaged (a damaged record only means a
// real build), or it or a folder on the way is not the user's alone
// (`distrust` then says why).
std::optional<NoopRecord> read_noop_record(const std::filesystem::path& file, std::string* distrust = nullptr);
std::optional<NoopRecord> parse_noop_record(std::string_view bytes);
std::string encode_noop_record(const NoopRecord& r);
// What the record keeps of an environment variable's value (nullptr: unset).
std::string env_fingerprint(const char* value);
// The first path that is not as recorded, or "${env:NAME}" of a variable
// that is not ("" when every one is).
std::string first_difference(const NoopRecord& r);

} // namespace af::engine
