// The file system as a build's commit and its action reads see it: the real
// one, or one held in memory so the scheduler and the commit rules can be
// tested without touching a disk (as ninja's tests run against a virtual
// file system). Globbing and the state store's stat cache stay on the real
// file system: they are the plan's and the state's own business.
#pragma once

#include "core/content_hash.hpp"
#include "engine/state_store.hpp"

#include <filesystem>
#include <map>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

namespace af::engine {

class Disk {
  public:
    virtual ~Disk() = default;
    // Follows links; nullopt when nothing is there. `rel` is `abs` relative to
    // the project root when it lies inside (the real disk stats it from an
    // open root directory: fewer path components for the kernel to walk).
    virtual std::optional<FileStat> stat(const std::string& rel, const std::string& abs) const = 0;
    // A regular file itself, not a link or a folder.
    virtual bool is_regular_file(const std::string& abs) const = 0;
    // `within` (a real path, or ""): the file opened must resolve inside it,
    // decided on the open file itself, so a link swapped in after the glob
    // checked the name is not read through.
    virtual std::vector<uint8_t> read(const std::string& abs, const std::string& within = "") const = 0;
    virtual Hash128 hash(const std::string& abs) const = 0;
    // Temp file + rename: a reader sees the old bytes or the new, never part.
    virtual void write_atomic(const std::string& abs, std::span<const uint8_t> bytes) = 0;
    virtual bool remove(const std::string& abs) = 0;
    // Throws when writing or removing `abs` would go through a link that
    // leaves `output_root`.
    virtual void check_no_link_escape(const std::string& abs, const std::filesystem::path& output_root) const = 0;
};

class RealDisk final : public Disk {
  public:
    // `output_root` (when given): every write's folder, as resolved once it
    // is open, must lie inside it (the guard's check, made again on the
    // open folder, so a link swapped in since is not written through).
    explicit RealDisk(const std::filesystem::path& root, std::filesystem::path output_root = {});
    ~RealDisk() override;
    RealDisk(const RealDisk&) = delete;
    RealDisk& operator=(const RealDisk&) = delete;
    std::optional<FileStat> stat(const std::string& rel, const std::string& abs) const override;
    bool is_regular_file(const std::string& abs) const override;
    std::vector<uint8_t> read(const std::string& abs, const std::string& within = "") const override;
    Hash128 hash(const std::string& abs) const override;
    void write_atomic(const std::string& abs, std::span<const uint8_t> bytes) override;
    bool remove(const std::string& abs) override;
    void check_no_link_escape(const std::string& abs, const std::filesystem::path& output_root) const override;

  private:
    int root_fd_;
    std::filesystem::path output_root_;
};

// Files by absolute path; every write gets a new mtime, as a real one would.
class MemoryDisk final : public Disk {
  public:
    std::optional<FileStat> stat(const std::string& rel, const std::string& abs) const override;
    bool is_regular_file(const std::string& abs) const override;
    std::vector<uint8_t> read(const std::string& abs, const std::string& within = "") const override;
    Hash128 hash(const std::string& abs) const override;
    void write_atomic(const std::string& abs, std::span<const uint8_t> bytes) override;
    bool remove(const std::string& abs) override;
    void check_no_link_escape(const std::string&, const std::filesystem::path&) const override {}

    // For tests: put a file (as a user would), read what is there.
    void put(const std::string& abs, std::string_view text);
    std::optional<std::string> text(const std::string& abs) const;
    size_t writes() const;

  private:
    struct File {
        std::vector<uint8_t> bytes;
        FileStat st;
    };
    mutable std::mutex mu_;
    std::map<std::string, File> files_;
    int64_t clock_ = 1;
    uint64_t next_inode_ = 1;
    size_t writes_ = 0;
};

} // namespace af::engine
