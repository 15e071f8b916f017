#include "folder_switch.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/error.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

namespace af::evr {

namespace fs = std::filesystem;

namespace {

[[noreturn]] void switch_fail(const fs::path& p, std::string_view what, int err) {
    sdk::io_fail(p.string(), what, err);
}

// `from` (relative `rel` below the switched folder) mirrored into `to`.
void mirror(const fs::path& from, const fs::path& to, const fs::path& rel,
            const std::function<bool(const fs::path&)>& skip) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(from, ec)) {
        const fs::path r = rel / e.path().filename(), target = to / e.path().filename();
        if (skip(r)) continue;
        struct stat st {};
        if (::lstat(e.path().c_str(), &st) != 0) switch_fail(e.path(), "cannot examine", errno);
        if (S_ISDIR(st.st_mode)) {
            if (::mkdir(target.c_str(), st.st_mode & 07777) != 0) switch_fail(target, "cannot create folder", errno);
            mirror(e.path(), target, r, skip);
        } else if (S_ISLNK(st.st_mode)) {
            std::error_code le;
            const fs::path link = fs::read_symlink(e.path(), le);
            if (le) switch_fail(e.path(), "cannot read link", le.value());
            fs::create_symlink(link, target, le);
            if (le) switch_fail(target, "cannot create link", le.value());
        } else if (S_ISREG(st.st_mode)) {
            if (::link(e.path().c_str(), target.c_str()) != 0)
                switch_fail(target,
                            "cannot link (replacing a set in place needs hard links in its folder; write to a "
                            "new folder instead)",
                            errno);
        } else {
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                      e.path().string() + ": not a regular file, folder or link; the output folder cannot be switched");
        }
    }
    if (ec) switch_fail(from, "cannot list", ec.value());
}

} // namespace

void switch_folder(const fs::path& dir_in, const std::function<bool(const fs::path&)>& skip,
                   const std::function<void(const fs::path&)>& write) {
    fs::path d = fs::absolute(dir_in).lexically_normal();
    if (d.filename().empty()) d = d.parent_path(); // "out/" -> "out"
    const fs::path parent = d.parent_path();
    if (parent.empty() || parent == d) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, d.string() + ": cannot switch the root");
    static thread_local std::mt19937_64 rng{std::random_device{}() ^ uint64_t(getpid())};
    char name[40];
    snprintf(name, sizeof name, "%s%016llx", sdk::kTempPrefix, (unsigned long long)rng());
    const fs::path stage = parent / name;
    struct stat st {};
    if (::stat(d.c_str(), &st) != 0) switch_fail(d, "cannot examine", errno);
    if (::mkdir(stage.c_str(), st.st_mode & 07777) != 0) switch_fail(stage, "cannot create folder", errno);
    try {
        mirror(d, stage, {}, skip);
        write(stage);
        // The stage's files are flushed by write(); its folder entries with them.
        const int pfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (pfd < 0) switch_fail(parent, "cannot open folder", errno);
        const int sync_rc = ::syncfs(pfd);
        const int rc =
            sync_rc == 0 ? ::renameat2(pfd, stage.filename().c_str(), pfd, d.filename().c_str(), RENAME_EXCHANGE) : -1;
        const int err = errno;
        if (rc == 0) ::fsync(pfd);
        ::close(pfd);
        if (rc != 0)
            switch_fail(d,
                        sync_rc != 0 ? "flush failed"
                                     : "cannot exchange it with the new contents (the file system must support "
                                       "renameat2 RENAME_EXCHANGE; write to a new folder instead)",
                        err);
    } catch (...) {
        std::error_code ec;
        fs::remove_all(stage, ec);
        throw;
    }
    std::error_code ec;
    fs::remove_all(stage, ec); // the old contents now
}

} // namespace af::evr
