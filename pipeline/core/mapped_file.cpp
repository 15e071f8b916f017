#include "core/mapped_file.hpp"

#include "assetforge/plugin.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace af {

MappedFile::MappedFile(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, std::string("cannot open: ") + strerror(errno));
    struct stat st{};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd);
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "not a regular file");
    }
    size_ = uint64_t(st.st_size);
    if (size_ > 0) {
        map_ = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
        if (map_ == MAP_FAILED) {
            map_ = nullptr;
            ::close(fd);
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET, std::string("cannot map: ") + strerror(errno));
        }
        data_ = static_cast<const uint8_t*>(map_);
    } else {
        static const uint8_t empty = 0;
        data_ = &empty;
    }
    ::close(fd);
}

MappedFile::~MappedFile() {
    if (map_) ::munmap(map_, size_);
}

MappedFile::MappedFile(MappedFile&& o) noexcept : data_(o.data_), size_(o.size_), map_(o.map_) {
    o.map_ = nullptr;
    o.data_ = nullptr;
    o.size_ = 0;
}

MappedFile& MappedFile::operator=(MappedFile&& o) noexcept {
    if (this != &o) {
        if (map_) ::munmap(map_, size_);
        data_ = o.data_; size_ = o.size_; map_ = o.map_;
        o.map_ = nullptr; o.data_ = nullptr; o.size_ = 0;
    }
    return *this;
}

} // namespace af
