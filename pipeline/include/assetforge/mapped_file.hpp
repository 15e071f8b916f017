// Read-only memory map of a whole file (POSIX, header-only); pages are read on
// demand, never all at once. For plugin commands that open files themselves:
// containers and stages get their input bytes from the host (af_input, af_item).
#pragma once

#include "assetforge/error.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <span>
#include <string>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace af::sdk {

class MappedFile {
  public:
    MappedFile() = default;
    // Fails with AF_ERR_IO (the message does not repeat the path).
    explicit MappedFile(const std::filesystem::path& path) {
        int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) fail(AF_ERR_IO, AF_NO_OFFSET, std::string("cannot open: ") + strerror(errno));
        struct stat st {};
        if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
            ::close(fd);
            fail(AF_ERR_IO, AF_NO_OFFSET, "not a regular file");
        }
        size_ = uint64_t(st.st_size);
        if (size_ > 0) {
            map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
            if (map_ == MAP_FAILED) {
                map_ = nullptr;
                ::close(fd);
                fail(AF_ERR_IO, AF_NO_OFFSET, std::string("cannot map: ") + strerror(errno));
            }
            data_ = static_cast<const uint8_t*>(map_);
        } else {
            static const uint8_t empty = 0;
            data_ = &empty;
        }
        ::close(fd);
    }
    ~MappedFile() {
        if (map_) ::munmap(map_, size_);
    }
    MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_), map_(o.map_) {
        o.map_ = nullptr;
        o.data_ = nullptr;
        o.size_ = 0;
    }
    MappedFile& operator=(MappedFile&& o) noexcept {
        if (this != &o) {
            if (map_) ::munmap(map_, size_);
            data_ = o.data_;
            size_ = o.size_;
            map_ = o.map_;
            o.map_ = nullptr;
            o.data_ = nullptr;
            o.size_ = 0;
        }
        return *this;
    }
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return data_; }
    uint64_t size() const { return size_; }
    std::span<const uint8_t> bytes() const { return {data_, size_}; }

  private:
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
    void* map_ = nullptr;
};

} // namespace af::sdk
