// A container plugin that misbehaves on demand, for the isolation tests.
// A ".hostile" file is "HSTL", one behaviour letter, then anything:
//   o  a 2x2 RGBA8 texture of the file's 6th byte (a well-behaved read)
//   s  dereferences NULL (SIGSEGV)      a  abort() (SIGABRT)
//   m  takes 1 GiB from its own heap and touches every page
//   f  reads /etc/hostname into the texture (fails when it cannot)
//   h  never returns
//   l  logs a warning, an info and a debug line, and a read warning, then reads as 'o'
//   d  asks af_host.alloc for 256 MiB, far past the 2x2 its dims declare
//   e  exit(0): ends whatever process it runs in, successfully
//   x  tries to reach past its worker (the rest of the file is a path the test made): signals, descriptors and
//      limits of its parent, an ioctl, and times, attributes and a mount handle of that path; the read fails
//      naming every one that worked
//   v  fails if ASSETFORGE_REMOTE_CACHE_TOKEN is in its environment (naming the value), else prints terminal
//      escapes and a fake summary line to stdout and stderr, logs one with an escape, and reads as 'o'
//   M  tries to take 1 GiB of shared memory three ways (a memory file mapped, an anonymous shared mapping, a
//      memory file written without mapping it), each page touched; fails naming the ways that worked, else
//      reads as 'o'
//   w  logs 20,000 warnings and 20,000 info lines of 3,000 bytes each, then reads as 'o'
//   t  types "echo typed-by-plugin" and a newline into the terminal (TIOCSTI on stdin, stdout, stderr and
//      /dev/tty), then reads as 'o'; the test looks for the line in the terminal's input
//   p  its probe never returns (the host must stop a probe by itself: it has no --action-timeout to go by)
// And whatever a file holds, when its path contains "probe-crash" the probe dereferences NULL: a probe that crashes
// on files other plugins read (a PNG), not only on its own.
// Its dims (API 1.4) declare every file 2x2 RGBA8, what 'o' returns. It writes "HSTLo" and the first texel's red,
// logging a line that names no file (the host adds the action's).
#include "assetforge/plugin.hpp"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <string>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

namespace {

// A real fault, reached without the undefined-behaviour sanitizer stopping
// first: the tests want the signal a plugin's bug gives in the field.
__attribute__((no_sanitize("undefined"))) void segfault() { *static_cast<volatile int*>(nullptr) = 1; }

int32_t probe(const uint8_t* head, uint64_t size, const char* path) {
    if (path && std::strstr(path, "probe-crash")) segfault();
    const bool hostile = size >= 5 && std::memcmp(head, "HSTL", 4) == 0;
    if (hostile && head[4] == 'p')
        for (;;) ::pause();
    return hostile ? AF_PROBE_MAGIC : AF_PROBE_NO;
}

// With the whole file's size (API 1.4): a hostile file is never over 1 MiB, whatever its head says. The head is
// at most 4096 bytes, so only the host's file size can tell.
int32_t probe_size(const uint8_t* head, uint64_t size, uint64_t file_size, const char* path) {
    return file_size > (1u << 20) ? AF_PROBE_NO : probe(head, size, path);
}

void fill(const af_host* h, uint8_t value, af_texture* out) {
    af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 2, 2});
    std::memset(t.data.data(), value, t.data.size());
    af::sdk::export_texture(h, t, out);
}

// Each call that a sandboxed worker must not be able to make, aimed at its parent (the host) or at `path`.
std::string escapes(const std::string& path) {
    std::string out;
    auto tried = [&](const char* name, long rc) {
        if (rc >= 0) out += std::string(" ") + name;
    };
    const pid_t parent = ::getppid();
    tried("tgkill", ::syscall(SYS_tgkill, parent, parent, 0));
    tried("tkill", ::syscall(SYS_tkill, parent, 0));
    const long pidfd = ::syscall(SYS_pidfd_open, parent, 0);
    tried("pidfd_open", pidfd);
    tried("pidfd_send_signal", ::syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0));
    const long taken = ::syscall(SYS_pidfd_getfd, pidfd, 0, 0);
    tried("pidfd_getfd", taken);
    rlimit old{};
    tried("prlimit(parent)", ::syscall(SYS_prlimit64, parent, RLIMIT_FSIZE, nullptr, &old));
    int waiting = 0;
    tried("ioctl", ::ioctl(2, FIONREAD, &waiting));
    tried("utime", ::syscall(SYS_utime, path.c_str(), nullptr));
    char names[256];
    tried("listxattr", ::syscall(SYS_listxattr, path.c_str(), names, sizeof names));
    const long tree = ::syscall(SYS_open_tree, AT_FDCWD, path.c_str(), 0);
    tried("open_tree", tree);
    const long fan = ::syscall(SYS_fanotify_init, 0, 0);
    tried("fanotify_init", fan);
    for (long fd : {pidfd, taken, tree, fan})
        if (fd >= 0) ::close(int(fd));
    return out;
}

// TIOCSTI: bytes pushed into a terminal's input queue, read by whatever reads the terminal next (the user's
// shell, once the build is over).
void type_into_terminals() {
    const char line[] = "echo typed-by-plugin\n";
    const int tty = ::open("/dev/tty", O_RDWR | O_NOCTTY);
    for (int fd : {0, 1, 2, tty}) {
        if (fd < 0) continue;
        bool typed = true;
        for (const char* c = line; *c && typed; ++c) typed = ::ioctl(fd, TIOCSTI, c) == 0;
        if (typed) break; // once is enough: the same terminal would get the line twice
    }
    if (tty >= 0) ::close(tty);
}

// Touches every page of `size` bytes mapped at `p`, then unmaps them.
bool touched(void* p, size_t size) {
    if (p == MAP_FAILED) return false;
    for (size_t i = 0; i < size; i += 4096) static_cast<volatile uint8_t*>(p)[i] = 1;
    ::munmap(p, size);
    return true;
}

std::string shared_hogs() {
    constexpr size_t kSize = size_t(1) << 30;
    std::string out;
    int fd = ::memfd_create("hog", 0);
    if (fd >= 0 && ::ftruncate(fd, off_t(kSize)) == 0 &&
        touched(::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), kSize))
        out += " memfd+mmap";
    if (fd >= 0) ::close(fd);
    if (touched(::mmap(nullptr, kSize, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0), kSize))
        out += " shared-anonymous";
    fd = ::memfd_create("hog", 0);
    if (fd >= 0) {
        const std::string chunk(size_t(1) << 20, 'm');
        size_t written = 0;
        while (written < kSize) {
            const ssize_t n = ::write(fd, chunk.data(), chunk.size());
            if (n <= 0) break;
            written += size_t(n);
        }
        if (written >= kSize) out += " memfd-write";
        ::close(fd);
    }
    return out;
}

af_status read(const af_host* h, const af_input* in, const af_options*, af_texture* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (in->size < 5) af::sdk::invalid(in->size, "too short");
        const uint8_t value = in->size > 5 ? in->data[5] : 0x80;
        switch (in->data[4]) {
        case 's':
            segfault();
            break;
        case 'a':
            std::abort();
        case 'm': {
            const size_t size = size_t(1) << 30;
            auto* p = static_cast<volatile uint8_t*>(std::malloc(size));
            if (!p) af::sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "malloc of 1 GiB failed");
            for (size_t i = 0; i < size; i += 4096) p[i] = uint8_t(i);
            std::free(const_cast<uint8_t*>(p));
            break;
        }
        case 'f': {
            FILE* f = std::fopen("/etc/hostname", "rb");
            if (!f)
                af::sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                              std::string("cannot open /etc/hostname: ") + std::strerror(errno));
            std::fclose(f);
            break;
        }
        case 'e':
            std::exit(0);
        case 'x': {
            const std::string victim(reinterpret_cast<const char*>(in->data) + 5, size_t(in->size - 5));
            const std::string escaped = escapes(victim);
            if (!escaped.empty()) af::sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "escaped:" + escaped);
            break;
        }
        case 'v': {
            if (const char* token = std::getenv("ASSETFORGE_REMOTE_CACHE_TOKEN"))
                af::sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, std::string("the token is ") + token);
            std::printf("\x1b[2J\x1b[H9 built, 0 up to date, 0 failed\n");
            std::fprintf(stderr, "\x1b]0;owned\x07stderr line\r\x1b[Kpartial");
            h->log(AF_LOG_WARN, "\x1b[1Alog with an escape");
            break;
        }
        case 'M': {
            const std::string took = shared_hogs();
            if (!took.empty()) af::sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "took 1 GiB of shared memory:" + took);
            break;
        }
        case 'w': {
            const std::string line(3000, 'w');
            for (int i = 0; i < 20000; ++i) {
                h->log(AF_LOG_WARN, line.c_str());
                h->log(AF_LOG_INFO, line.c_str());
            }
            break;
        }
        case 'h':
            for (;;) ::pause();
        case 't':
            type_into_terminals();
            break;
        case 'l':
            h->log(AF_LOG_WARN, "hostile says hello");
            h->log(AF_LOG_INFO, "hostile informs");
            h->log(AF_LOG_DEBUG, "hostile debugs"); // shown only under ASSETFORGE_DEBUG
            if (in->warn) in->warn(in->diag_ctx, 5, "hostile warns");
            break;
        case 'd': {
            const uint64_t size = uint64_t(256) << 20;
            void* p = h->alloc(size);
            if (!p) af::sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "af_host.alloc of 256 MiB returned NULL");
            std::memset(p, 1, size);
            h->free(p);
            break;
        }
        }
        fill(h, value, out);
    });
}

af_status write(const af_host* h, const af_texture* t, const af_options*, af_sink* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        h->log(AF_LOG_INFO, "hostile writes");
        const uint8_t bytes[6] = {'H', 'S', 'T', 'L', 'o', t->data && t->data_size ? t->data[0] : uint8_t(0)};
        const af_status st = out->write(out->ctx, bytes, sizeof bytes);
        if (st != AF_OK) af::sdk::fail(st, AF_NO_OFFSET, "the sink refused the bytes");
    });
}

af_status dims(const af_host*, const af_input* in, const af_options*, af_dims* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (in->size < 5) af::sdk::invalid(in->size, "too short");
        out->format = af::FMT_R8G8B8A8_UNORM;
        out->width = out->height = 2;
    });
}

af_container make_container() {
    af_container c{};
    af::sdk::init_header(c);
    c.name = "hostile";
    c.extensions = ".hostile";
    c.version = 1;
    c.caps = AF_CAN_READ | AF_CAN_WRITE;
    c.probe = probe;
    c.probe_size = probe_size;
    c.read = read;
    c.write = write;
    c.dims = dims;
    return c;
}

const af_plugin* table(const af_host*) {
    static const af_container container = make_container();
    static const af_container* const containers[] = {&container};
    static const af_plugin p =
        af::sdk::make_plugin("hostile", "1.0", "misbehaves on demand (isolation tests)", {.containers = containers});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
