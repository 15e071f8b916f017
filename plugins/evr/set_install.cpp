#include "set_install.hpp"

#include "output_batch.hpp"
#include "package_set.hpp"
#include "set_extract.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/error.hpp"
#include "assetforge/mapped_file.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <dirent.h>
#include <fcntl.h>
#include <fstream>
#include <map>
#include <optional>
#include <random>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;

namespace {

constexpr const char* kJournal = "backup.json";

[[noreturn]] void install_fail(const fs::path& p, std::string_view what, int err) {
    sdk::io_fail(p.string(), what, err);
}

void fsync_dir(const fs::path& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) install_fail(dir, "cannot open folder", errno);
    const int rc = ::fsync(fd), e = errno;
    ::close(fd);
    if (rc != 0) install_fail(dir, "fsync failed", e);
}

fs::path temp_beside(const fs::path& target) {
    static thread_local std::mt19937_64 rng{std::random_device{}() ^ uint64_t(getpid())};
    char name[40];
    snprintf(name, sizeof name, "%s%016llx", sdk::kTempPrefix, (unsigned long long)rng());
    return target.parent_path() / name;
}

// A new name for `src`'s contents: a hard link (no bytes copied; a game part
// is up to 2 GiB), or a flushed copy when the two are on different file systems.
void link_or_copy(const fs::path& src, const fs::path& dst) {
    if (::link(src.c_str(), dst.c_str()) == 0) return;
    if (errno != EXDEV && errno != EPERM && errno != EMLINK && errno != ENOTSUP)
        install_fail(dst, "cannot link", errno);
    const sdk::MappedFile in(src);
    const int fd = ::open(dst.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) install_fail(dst, "cannot create", errno);
    const uint8_t* q = in.bytes().data();
    size_t n = in.bytes().size();
    while (n) {
        const ssize_t w = ::write(fd, q, std::min<size_t>(n, size_t(1) << 30));
        if (w < 0 && errno == EINTR) continue;
        if (w < 0) {
            const int e = errno;
            ::close(fd);
            install_fail(dst, "write failed", e);
        }
        q += w;
        n -= size_t(w);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) install_fail(dst, "flush failed", errno);
}

// The files of set `name` in a data folder, relative to it: the manifest
// and every `packages/NAME_<N>`, whatever the manifest says. Anything but a
// regular file at one of those names is refused by name.
std::vector<std::string> set_files(const fs::path& data, const std::string& name) {
    std::vector<std::string> out;
    auto check = [&](const fs::path& p, const std::string& rel) {
        struct stat st {};
        if (::lstat(p.c_str(), &st) != 0) {
            if (errno == ENOENT) return;
            install_fail(p, "cannot examine", errno);
        }
        if (!S_ISREG(st.st_mode))
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                      p.string() + ": not a regular file (a link, folder or device where a set's file belongs)");
        out.push_back(rel);
    };
    check(data / "manifests" / name, "manifests/" + name);
    std::error_code ec;
    const fs::path packages = data / "packages";
    if (!fs::is_directory(packages, ec)) return out;
    std::vector<std::pair<uint64_t, std::string>> parts;
    for (const auto& e : fs::directory_iterator(packages, ec)) {
        const std::string f = e.path().filename().string();
        if (f.size() <= name.size() + 1 || f.compare(0, name.size() + 1, name + "_") != 0) continue;
        const std::string n = f.substr(name.size() + 1);
        if (n.size() > 9 || !std::all_of(n.begin(), n.end(), [](char c) { return c >= '0' && c <= '9'; })) continue;
        parts.push_back({std::stoull(n), f});
    }
    if (ec) install_fail(packages, "cannot list", ec.value());
    std::sort(parts.begin(), parts.end());
    for (const auto& [n, f] : parts) check(packages / f, "packages/" + f);
    return out;
}

// Held while an install or restore works in a game folder. The temporaries
// found under it are abandoned: a run that made them and is still at work
// would hold the lock, and a killed run's lock went with its process. Where
// the file system cannot lock (some network ones), nothing is swept.
class GameLock {
  public:
    GameLock(const fs::path& game, const WarnFn& warn) {
        fd_ = ::open(game.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd_ < 0) install_fail(game, "cannot open folder", errno);
        int rc = ::flock(fd_, LOCK_EX | LOCK_NB);
        if (rc != 0 && errno == EWOULDBLOCK) {
            if (warn) warn(game.string() + ": another install or restore is at work there; waiting for it");
            while ((rc = ::flock(fd_, LOCK_EX)) != 0 && errno == EINTR) {
            }
        }
        held_ = rc == 0;
        if (!held_ && warn)
            warn(game.string() + ": cannot lock the folder (" + std::strerror(errno) +
                 "); temporaries of an interrupted install are left alone");
    }
    ~GameLock() { ::close(fd_); } // the lock goes with the descriptor
    GameLock(const GameLock&) = delete;
    GameLock& operator=(const GameLock&) = delete;
    bool held() const { return held_; }

  private:
    int fd_ = -1;
    bool held_ = false;
};

// Removes this file's own temporaries (regular files only: a folder or link
// with such a name is not one) directly in `dir`; appends their paths.
void sweep_temporaries(const fs::path& dir, std::vector<std::string>& swept) {
    const int dfd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        if (errno == ENOENT) return;
        install_fail(dir, "cannot open folder", errno);
    }
    DIR* d = ::fdopendir(dfd);
    if (!d) {
        const int e = errno;
        ::close(dfd);
        install_fail(dir, "cannot list", e);
    }
    std::vector<std::string> names;
    while (const dirent* e = ::readdir(d))
        if (is_own_temporary(e->d_name)) names.push_back(e->d_name);
    for (const auto& n : names) {
        struct stat st {};
        if (::fstatat(dfd, n.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        if (::unlinkat(dfd, n.c_str(), 0) != 0 && errno != ENOENT) {
            const int e = errno;
            ::closedir(d);
            install_fail(dir / n, "cannot remove a temporary an interrupted install left", e);
        }
        swept.push_back((dir / n).string());
    }
    ::closedir(d);
}

void sweep_all(const fs::path& game, const fs::path& backup, const GameLock& lock, std::vector<std::string>& swept) {
    if (!lock.held()) return;
    for (const fs::path& dir : {game / "manifests", game / "packages", backup}) sweep_temporaries(dir, swept);
}

struct Journal {
    std::map<std::string, bool> existed; // relative path -> was in the game folder before the first install
};

bool read_journal(const fs::path& backup, Journal& j) {
    std::ifstream in(backup / kJournal);
    if (!in) return false;
    nlohmann::json doc;
    try {
        doc = nlohmann::json::parse(in);
        for (const auto& f : doc.at("files")) j.existed[f.at("path").get<std::string>()] = f.at("existed").get<bool>();
    } catch (const nlohmann::json::exception&) {
        sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET,
                  (backup / kJournal).string() + ": not a backup record this tool wrote");
    }
    for (const auto& [rel, existed] : j.existed)
        if (rel.find("..") != std::string::npos || rel.empty() || rel[0] == '/')
            sdk::fail(AF_ERR_INVALID_DATA, AF_NO_OFFSET, (backup / kJournal).string() + ": names " + rel);
    return true;
}

void write_journal(const fs::path& backup, const std::string& name, const Journal& j) {
    nlohmann::json doc;
    doc["set"] = name;
    doc["files"] = nlohmann::json::array();
    for (const auto& [rel, existed] : j.existed) doc["files"].push_back({{"path", rel}, {"existed", existed}});
    const std::string text = doc.dump(1) + "\n";
    OutputBatch batch(backup);
    batch.add(backup / kJournal, {}, {reinterpret_cast<const uint8_t*>(text.data()), text.size()});
    batch.commit();
    fsync_dir(backup);
}

} // namespace

fs::path default_backup(const fs::path& game, const std::string& name) { return game / ".assetforge-backup" / name; }

bool is_own_temporary(std::string_view name) {
    const std::string_view prefix = sdk::kTempPrefix;
    if (name.size() != prefix.size() + 16 || !name.starts_with(prefix)) return false;
    return std::all_of(name.begin() + long(prefix.size()), name.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

InstallReport install_set(const fs::path& outdata, const fs::path& game, const std::string& name,
                          const fs::path& backup, const af_host* host, const WarnFn& warn) {
    if (same_place(outdata, game))
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET, outdata.string() + ": the new set and the game folder are the same place");
    // The new set must pass every check before the game folder is touched.
    const PackageSet fresh(locate_set(outdata, name), Limits{}, warn);
    (void)verify_set(fresh, host, nullptr, nullptr);
    std::vector<std::string> incoming = {"manifests/" + name};
    for (uint32_t i = 0; i < fresh.part_count(); ++i) incoming.push_back("packages/" + name + "_" + std::to_string(i));
    InstallReport rep;
    std::error_code ec;
    fs::create_directories(game, ec);
    if (ec) install_fail(game, "cannot create folder", ec.value());
    const GameLock lock(game, warn);
    sweep_all(game, backup, lock, rep.swept);
    const std::vector<std::string> present = set_files(game, name);
    auto has = [](const std::vector<std::string>& v, const std::string& s) {
        return std::find(v.begin(), v.end(), s) != v.end();
    };

    // 1. The new files, written beside their targets (nothing visible yet).
    for (const char* d : {"manifests", "packages"}) {
        fs::create_directories(game / d, ec);
        if (ec) install_fail(game / d, "cannot create folder", ec.value());
    }
    std::vector<sdk::MappedFile> sources;
    sources.reserve(incoming.size());
    // The game folder's own layout is the user's (packages/ on another disk,
    // linked): its folders are not held to lie inside it.
    OutputBatch batch({});
    for (size_t k = 1; k <= incoming.size(); ++k) { // parts first, the manifest last
        const std::string& rel = incoming[k % incoming.size()];
        sources.emplace_back(outdata / rel);
        batch.add(game / rel, {}, sources.back().bytes());
    }

    // 2. The backup, complete and flushed before any game file changes.
    rep.backup = backup;
    Journal j;
    rep.backup_kept = read_journal(backup, j);
    if (!rep.backup_kept) fs::remove_all(backup, ec); // a backup without its record was never used
    for (const char* d : {"manifests", "packages"}) {
        fs::create_directories(backup / d, ec);
        if (ec) install_fail(backup / d, "cannot create folder", ec.value());
    }
    bool journal_changed = !rep.backup_kept;
    for (const auto& list : {present, incoming})
        for (const auto& rel : list) {
            if (j.existed.count(rel)) continue;
            const bool existed = has(present, rel);
            if (existed) {
                ::unlink((backup / rel).c_str()); // a leftover of an interrupted run of this step
                link_or_copy(game / rel, backup / rel);
            }
            j.existed[rel] = existed;
            journal_changed = true;
        }
    if (journal_changed) {
        fsync_dir(backup / "manifests");
        fsync_dir(backup / "packages");
        write_journal(backup, name, j);
    }

    // 3. The switch: each name at once to its new contents, the manifest last;
    //    then the parts the new set no longer has.
    batch.commit();
    for (const auto& rel : present)
        if (!has(incoming, rel)) {
            if (::unlink((game / rel).c_str()) != 0 && errno != ENOENT)
                install_fail(game / rel, "cannot remove", errno);
            rep.removed.push_back(rel);
        }
    fsync_dir(game / "packages");
    fsync_dir(game / "manifests");
    for (const auto& rel : incoming) (has(present, rel) ? rep.replaced : rep.added).push_back(rel);
    (void)PackageSet(locate_set(game, name), Limits{}, nullptr); // what the game will open
    return rep;
}

RestoreReport restore_set(const fs::path& game, const std::string& name, const fs::path& backup, const WarnFn& warn) {
    RestoreReport rep;
    std::error_code dec;
    std::optional<GameLock> lock;
    if (fs::is_directory(game, dec)) {
        lock.emplace(game, warn);
        sweep_all(game, backup, *lock, rep.swept);
    }
    Journal j;
    if (!read_journal(backup, j))
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                  backup.string() + ": no backup of set " + name + " (nothing was installed, or it was restored)" +
                      (rep.swept.empty() ? ""
                                         : format("; removed %zu temporar%s an interrupted install left",
                                                  rep.swept.size(), rep.swept.size() == 1 ? "y" : "ies")));
    // Kept files back first (parts before the manifest), files the installs added last.
    std::vector<std::string> order;
    for (const auto& [rel, existed] : j.existed)
        if (existed && rel.rfind("packages/", 0) == 0) order.push_back(rel);
    for (const auto& [rel, existed] : j.existed)
        if (existed && rel.rfind("packages/", 0) != 0) order.push_back(rel);
    for (const auto& rel : order) {
        const fs::path target = game / rel, temp = temp_beside(target);
        std::error_code ec;
        fs::create_directories(target.parent_path(), ec);
        link_or_copy(backup / rel, temp);
        if (::rename(temp.c_str(), target.c_str()) != 0) {
            const int e = errno;
            ::unlink(temp.c_str());
            install_fail(target, "rename failed", e);
        }
        rep.restored.push_back(rel);
    }
    for (const auto& [rel, existed] : j.existed)
        if (!existed) {
            if (::unlink((game / rel).c_str()) == 0) {
                rep.removed.push_back(rel);
            } else if (errno != ENOENT) {
                install_fail(game / rel, "cannot remove", errno);
            }
        }
    for (const char* d : {"manifests", "packages"})
        if (fs::is_directory(game / d)) fsync_dir(game / d);
    std::error_code ec;
    fs::remove_all(backup, ec);
    if (ec) install_fail(backup, "cannot remove the used backup", ec.value());
    return rep;
}

} // namespace af::evr
