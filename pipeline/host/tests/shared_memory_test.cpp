// What the host maps of a worker's reply: a worker (or the plugin code inside it) may claim more bytes than the
// memory file holds, shrink the file after the host looked, or send a descriptor that is no memory file at all.
// Any of these once became SIGBUS in the host on its first read.
#include "host/isolation/shared_memory.hpp"
#include "host/isolation/wire.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>

namespace iso = af::host::isolation;

namespace {

int memfd_of(uint64_t size, unsigned flags = MFD_CLOEXEC | MFD_ALLOW_SEALING) {
    const int fd = ::memfd_create("test", flags);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(size)) == 0);
    return fd;
}

} // namespace

TEST_CASE("shared memory: a reply claiming more bytes than its memory file holds is refused, not mapped") {
    const int fd = memfd_of(4096);
    CHECK(iso::map_shared(fd, 16u << 20) == nullptr);
    CHECK(iso::adopt_shared(::dup(fd), 16u << 20) == nullptr);
    void* whole = iso::map_shared(fd, 4096);
    REQUIRE(whole != nullptr);
    ::munmap(whole, 4096);
    ::close(fd);
}

TEST_CASE("shared memory: once mapped, the sender can no longer shrink the file under the host") {
    const int fd = memfd_of(8192);
    void* p = iso::map_shared(fd, 8192);
    REQUIRE(p != nullptr);
    CHECK(::ftruncate(fd, 0) != 0); // sealed: reading the last byte below stays valid
    CHECK(static_cast<const volatile uint8_t*>(p)[8191] == 0);
    ::munmap(p, 8192);
    ::close(fd);
}

TEST_CASE("shared memory: a descriptor that cannot be sealed (not a memory file, or sealing refused) is refused") {
    const int unsealable = memfd_of(4096, MFD_CLOEXEC); // created without MFD_ALLOW_SEALING
    CHECK(iso::map_shared(unsealable, 4096) == nullptr);
    ::close(unsealable);
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    CHECK(iso::map_shared(pipe_fds[0], 1) == nullptr);
    ::close(pipe_fds[0]);
    ::close(pipe_fds[1]);
}

TEST_CASE("shared memory: what make_shared hands out is sealed at its size and maps on the other side") {
    void* mine = nullptr;
    const int fd = iso::make_shared(100, &mine);
    REQUIRE(fd >= 0);
    std::memset(mine, 7, 100);
    CHECK(::ftruncate(fd, 10) != 0);
    CHECK(::ftruncate(fd, 1 << 20) != 0);
    void* theirs = iso::map_shared(fd, 100);
    REQUIRE(theirs != nullptr);
    CHECK(static_cast<const uint8_t*>(theirs)[99] == 7);
    ::munmap(theirs, 100);
    ::munmap(mine, 100);
    ::close(fd);
}

TEST_CASE("shared memory: what the host adopts is frozen, and refused while the sender can still write to it") {
    void* theirs = nullptr;
    const int fd = iso::make_shared(4096, &theirs);
    REQUIRE(fd >= 0);
    std::memset(theirs, 1, 4096);
    // The sender kept its writable mapping: it could change the buffer after the host looked (a NUL that ended a
    // text, bytes already hashed), so the host takes none of it.
    CHECK(iso::adopt_shared(::dup(fd), 4096) == nullptr);
    ::munmap(theirs, 4096);
    auto* adopted = static_cast<uint8_t*>(iso::adopt_shared(::dup(fd), 4096));
    REQUIRE(adopted != nullptr);
    // Nothing the sender still holds changes it: no write, no new writable mapping, no resize.
    const uint8_t two = 2;
    CHECK(::pwrite(fd, &two, 1, 0) < 0);
    CHECK(::mmap(nullptr, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) == MAP_FAILED);
    CHECK(::ftruncate(fd, 0) != 0);
    CHECK(adopted[0] == 1);
    // The host may still write to its own view (a plugin's allocation is the host's to change).
    adopted[0] = 3;
    CHECK(adopted[0] == 3);
    CHECK(iso::release_shared(adopted));
    ::close(fd);
}
