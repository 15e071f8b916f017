#include "host/isolation/wire.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace af::host::isolation {

Writer& Writer::u32(uint32_t v) { return raw(&v, sizeof v); }
Writer& Writer::u64(uint64_t v) { return raw(&v, sizeof v); }
Writer& Writer::str(std::string_view s) {
    u32(uint32_t(s.size()));
    return raw(s.data(), s.size());
}
Writer& Writer::raw(const void* p, size_t n) {
    const auto* c = static_cast<const uint8_t*>(p);
    b_.insert(b_.end(), c, c + n);
    return *this;
}

std::string_view Reader::raw(size_t n) {
    if (n > b_.size() - at_) throw std::runtime_error("truncated message from plugin worker");
    std::string_view v(reinterpret_cast<const char*>(b_.data()) + at_, n);
    at_ += n;
    return v;
}
uint32_t Reader::u32() {
    uint32_t v;
    std::memcpy(&v, raw(sizeof v).data(), sizeof v);
    return v;
}
uint64_t Reader::u64() {
    uint64_t v;
    std::memcpy(&v, raw(sizeof v).data(), sizeof v);
    return v;
}
std::string Reader::str() { return std::string(raw(u32())); }

bool send_message(int sock, Op op, const std::vector<uint8_t>& body, const std::vector<int>& fds) {
    uint32_t tag = uint32_t(op);
    iovec iov[2] = {{&tag, sizeof tag}, {const_cast<uint8_t*>(body.data()), body.size()}};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    if (!fds.empty()) {
        if (fds.size() > kMaxFds) return false;
        m.msg_control = control;
        m.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
        cmsghdr* c = CMSG_FIRSTHDR(&m);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
        std::memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
    }
    for (;;) {
        ssize_t n = ::sendmsg(sock, &m, MSG_NOSIGNAL);
        if (n >= 0) return size_t(n) == sizeof tag + body.size();
        if (errno != EINTR) return false;
    }
}

bool recv_message(int sock, Message& out) {
    // Received into a buffer of the thread's, then copied at its length: sizing each message's body to the largest
    // a message may be would clear 64 KiB per message.
    thread_local std::vector<uint8_t> buffer(kMaxMessage);
    uint32_t tag = 0;
    iovec iov[2] = {{&tag, sizeof tag}, {buffer.data(), buffer.size()}};
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int) * kMaxFds)];
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    ssize_t n;
    do n = ::recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    out.fds.clear();
    for (cmsghdr* c = CMSG_FIRSTHDR(&m); c; c = CMSG_NXTHDR(&m, c))
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
            const size_t count = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            const size_t before = out.fds.size();
            out.fds.resize(before + count);
            std::memcpy(out.fds.data() + before, CMSG_DATA(c), count * sizeof(int));
        }
    if (n < ssize_t(sizeof tag) || (m.msg_flags & (MSG_TRUNC | MSG_CTRUNC))) {
        close_fds(out.fds);
        return false;
    }
    out.op = Op(tag);
    out.body.assign(buffer.begin(), buffer.begin() + (n - ssize_t(sizeof tag)));
    return true;
}

int make_shared(uint64_t size, void** map) {
    *map = MAP_FAILED;
    int fd = ::memfd_create("assetforge", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) return -1;
    // Its size is final from here: the peer that receives it seals it the same way before mapping.
    if (::ftruncate(fd, off_t(size ? size : 1)) != 0 || ::fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0) {
        ::close(fd);
        return -1;
    }
    *map = ::mmap(nullptr, size ? size : 1, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (*map == MAP_FAILED) {
        ::close(fd);
        return -1;
    }
    return fd;
}

namespace {

// The descriptor comes from the other process, which may lie: it is sealed with `seals` (before its size is read,
// so no truncation can slip in between) and must be a memory file holding the bytes claimed, or a mapping past its
// end would be SIGBUS on the first read.
void* map_checked(int fd, uint64_t size, unsigned seals, int prot, int flags) {
    const uint64_t need = size ? size : 1;
    struct stat st {};
    if (::fcntl(fd, F_ADD_SEALS, seals) != 0 || ::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        uint64_t(st.st_size) < need)
        return nullptr;
    void* p = ::mmap(nullptr, need, prot, flags, fd, 0);
    return p == MAP_FAILED ? nullptr : p;
}

} // namespace

void* map_shared(int fd, uint64_t size) { return map_checked(fd, size, F_SEAL_SHRINK, PROT_READ, MAP_SHARED); }

void* map_shared_writable(int fd, uint64_t size) {
    return map_checked(fd, size, F_SEAL_SHRINK, PROT_READ | PROT_WRITE, MAP_SHARED);
}

void* map_frozen(int fd, uint64_t size) {
    return map_checked(fd, size, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE, PROT_READ | PROT_WRITE, MAP_PRIVATE);
}

void close_fds(std::vector<int>& fds) {
    for (int fd : fds)
        if (fd >= 0) ::close(fd);
    fds.clear();
}

} // namespace af::host::isolation
