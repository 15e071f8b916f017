#include "remote/blob_file.hpp"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <stdexcept>
#include <sys/mman.h>
#include <unistd.h>

namespace af::remote {

struct Blob::Mapping {
    void* addr = nullptr;
    size_t size = 0;
    ~Mapping() {
        if (addr) munmap(addr, size);
    }
};

std::span<const uint8_t> Blob::bytes() const {
    if (!mapping_ || !mapping_->addr) return {};
    return {static_cast<const uint8_t*>(mapping_->addr), mapping_->size};
}

bool Blob::operator==(const std::vector<uint8_t>& other) const {
    const auto b = bytes();
    return b.size() == other.size() && (b.empty() || std::memcmp(b.data(), other.data(), b.size()) == 0);
}

namespace {

int open_unnamed(const std::string& dir) {
    const std::string where = dir.empty() ? std::string("/tmp") : dir;
    int fd = open(where.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    // File systems without O_TMPFILE: a named file, unlinked at once.
    std::string name = where + "/.af-tmp-blob-XXXXXX";
    fd = mkostemp(name.data(), O_CLOEXEC);
    if (fd < 0)
        throw std::runtime_error("cannot create a temporary file in " + where + " for a cache blob (" +
                                 std::strerror(errno) + ")");
    unlink(name.c_str());
    return fd;
}

} // namespace

BlobWriter::BlobWriter(const std::string& dir) : fd_(open_unnamed(dir)) {}

BlobWriter::~BlobWriter() {
    if (fd_ >= 0) close(fd_);
}

void BlobWriter::restart() {
    size_ = 0;
    hash_ = Sha256();
    why_.clear();
    if (ftruncate(fd_, 0) != 0 || lseek(fd_, 0, SEEK_SET) != 0)
        why_ = std::string("cannot reset the temporary file (") + std::strerror(errno) + ")";
}

bool BlobWriter::write(std::span<const uint8_t> chunk) {
    if (!why_.empty()) return false;
    hash_.update(chunk);
    for (size_t done = 0; done < chunk.size();) {
        const ssize_t n = ::write(fd_, chunk.data() + done, chunk.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            why_ = std::string("cannot write the blob to a temporary file (") + std::strerror(errno) + ")";
            return false;
        }
        done += size_t(n);
    }
    size_ += int64_t(chunk.size());
    return true;
}

Blob BlobWriter::finish() {
    auto m = std::make_shared<Blob::Mapping>();
    if (size_ > 0) {
        void* addr = mmap(nullptr, size_t(size_), PROT_READ, MAP_PRIVATE, fd_, 0);
        if (addr == MAP_FAILED)
            throw std::runtime_error(std::string("cannot map a fetched blob (") + std::strerror(errno) + ")");
        // Read once, front to back (hashing, then writing the output): the kernel may drop pages behind.
        madvise(addr, size_t(size_), MADV_SEQUENTIAL);
        m->addr = addr;
        m->size = size_t(size_);
    }
    close(fd_);
    fd_ = -1;
    Blob b;
    b.mapping_ = std::move(m);
    return b;
}

} // namespace af::remote
