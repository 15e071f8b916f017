// A scratch project directory for end-to-end tests, removed afterwards.
#pragma once

#include <filesystem>
#include <fstream>
#include <random>
#include <string>

namespace af::test {

class TempDir {
  public:
    explicit TempDir(const std::string& tag = "af-cli-test") {
        static std::mt19937_64 rng{std::random_device{}()};
        path_ = std::filesystem::temp_directory_path() / (tag + "-" + std::to_string(rng()));
        std::filesystem::create_directories(path_);
        path_ = std::filesystem::canonical(path_); // messages print resolved paths
    }
    ~TempDir() {
        namespace fs = std::filesystem;
        std::error_code ec;
        // A test may leave a folder read-only.
        for (auto it = fs::recursive_directory_iterator(path_, ec); !ec && it != fs::recursive_directory_iterator();
             it.increment(ec))
            if (it->is_directory(ec) && !it->is_symlink(ec))
                fs::permissions(it->path(), fs::perms::owner_all, fs::perm_options::add, ec);
        fs::remove_all(path_, ec);
    }
    TempDir(const TempDir&) = delete;
    TempDir& operator=(const TempDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::filesystem::path operator/(const std::string& rel) const { return path_ / rel; }
    void write(const std::string& rel, const std::string& text) const {
        std::filesystem::create_directories((path_ / rel).parent_path());
        std::ofstream(path_ / rel, std::ios::binary) << text;
    }
    void copy(const std::filesystem::path& from, const std::string& rel) const {
        std::filesystem::create_directories((path_ / rel).parent_path());
        std::filesystem::copy_file(from, path_ / rel, std::filesystem::copy_options::overwrite_existing);
    }

  private:
    std::filesystem::path path_;
};

} // namespace af::test
