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
//   n  makes empty memory files until it cannot (at most 2,000), logs "memory files N", then reads as 'o'
//   i  logs "pid N" with its own process id (2 in a worker's PID namespace), then reads as 'o'
//   p  its probe never returns (the host must stop a probe by itself: it has no --action-timeout to go by)
//   q  reads as 'o', naming the encoding it "stored" in the metadata (AF_META_STORED_FORMAT: "HSTL-Q1"); the writer
//      writes 'q' when the first texel's red is 'Q', as a writer that encodes as it writes
// And whatever a file holds, when its path contains "probe-crash" the probe dereferences NULL: a probe that crashes
// on files other plugins read (a PNG), not only on its own.
// Its dims (API 1.4) declare every file 2x2 RGBA8, what 'o' returns. It writes "HSTLo" and the first texel's red
// (the 'o' from the string "hostile-writer-mark:o", which a test patches to tell two copies of the plugin apart),
// logging a line that names no file (the host adds the action's), and a warning when that red is 'W'.
//
// Its stage `hostile.stage` (one item in, two out) misbehaves on the same letters when given a file's bytes:
//   o  (or any other) emits <stem>.bin ("stage:" and the input) and <stem>.png (2x2 RGBA8 of the 6th byte, the
//      item's metadata plus shade=<that byte>); given a texture, emits it with every byte inverted as <stem>-inv.png
//   s  dereferences NULL     e  exit(0)     h  never returns
//   m  mallocs 10 GiB and, when it gets them, touches 512 MiB of them
//   f  reads /etc/hostname (fails when it cannot), then emits as 'o'
//   L  in a worker, forges an emitted item on the worker's socket claiming 16 MiB over a 4 KiB memory file, then
//      emits as 'o'; in process (where fd 3 is the host's own) just emits as 'o'
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
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <vector>

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

// `stored`: the metadata names the encoding the file "stores" (the host copies the pairs; they outlive the call).
void fill(const af_host* h, uint8_t value, af_texture* out, bool stored = false) {
    af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 2, 2});
    std::memset(t.data.data(), value, t.data.size());
    af::sdk::export_texture(h, t, out);
    static const af_kv kStored[] = {{AF_META_STORED_FORMAT, "HSTL-Q1"}};
    if (stored) {
        out->meta = kStored;
        out->meta_count = 1;
    }
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
        case 'n': {
            std::vector<int> files;
            for (int fd; files.size() < 2000 && (fd = ::memfd_create("count", MFD_CLOEXEC)) >= 0;) files.push_back(fd);
            h->log(AF_LOG_WARN, ("memory files " + std::to_string(files.size())).c_str());
            for (int fd : files) ::close(fd);
            break;
        }
        case 'i':
            h->log(AF_LOG_WARN, ("pid " + std::to_string(::getpid())).c_str());
            break;
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
        fill(h, value, out, in->data[4] == 'q');
    });
}

af_status write(const af_host* h, const af_texture* t, const af_options*, af_sink* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        h->log(AF_LOG_INFO, "hostile writes");
        if (t->data && t->data_size && t->data[0] == 'W') h->log(AF_LOG_WARN, "hostile warns as it writes");
        // The 'o' is read from this string at run time, so a test can tell two copies of the plugin apart by
        // patching it in one copy's bytes (watch_test: a plugin swapped while `watch` runs).
        static const char kMark[] = "hostile-writer-mark:o";
        const char* volatile mark = kMark;
        const uint8_t red = t->data && t->data_size ? t->data[0] : uint8_t(0);
        const uint8_t bytes[6] = {'H', 'S', 'T', 'L', red == 'Q' ? uint8_t('q') : uint8_t(mark[sizeof kMark - 2]), red};
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

// The wire's tag for an item a stage emits (pipeline/host/isolation/wire.hpp: Op::Emit), written here by hand as a
// plugin attacking its host would.
constexpr uint32_t kEmitTag = 12;

// fd 3 when it is a worker's line to its host: a socket, in a process with no environment (a worker's; a sanitizer
// build passes only its runtime's options, never PATH). In process fd 3 is whatever the host opened, never to be
// written. (getsockopt and getppid, which would say more, are not the sandbox's to allow.)
bool worker_socket() {
    struct stat st {};
    return ::fstat(3, &st) == 0 && S_ISSOCK(st.st_mode) && !std::getenv("PATH");
}

// An emitted bytes item named "forged.bin" claiming 16 MiB, with a 4 KiB memory file as its bytes.
void forge_emit() {
    std::string body;
    auto u32 = [&](uint32_t v) { body.append(reinterpret_cast<const char*>(&v), sizeof v); };
    const std::string name = "forged.bin";
    u32(uint32_t(name.size()));
    body += name;
    u32(0); // no metadata
    u32(0); // bytes
    const uint64_t claimed = uint64_t(16) << 20;
    body.append(reinterpret_cast<const char*>(&claimed), sizeof claimed);
    int fd = ::memfd_create("forged", MFD_ALLOW_SEALING);
    if (fd < 0 || ::ftruncate(fd, 4096) != 0) return;
    uint32_t tag = kEmitTag;
    iovec iov[2] = {{&tag, sizeof tag}, {body.data(), body.size()}};
    alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))];
    msghdr m{};
    m.msg_iov = iov;
    m.msg_iovlen = 2;
    m.msg_control = control;
    m.msg_controllen = sizeof control;
    cmsghdr* c = CMSG_FIRSTHDR(&m);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(c), &fd, sizeof fd);
    (void)::sendmsg(3, &m, MSG_NOSIGNAL);
    ::close(fd);
}

std::string stem_of(const char* name) {
    std::string n = name ? name : "item";
    const size_t slash = n.rfind('/');
    if (slash != std::string::npos) n = n.substr(slash + 1);
    const size_t dot = n.rfind('.');
    return dot == std::string::npos || dot == 0 ? n : n.substr(0, dot);
}

void misbehave_in_stage(char behaviour) {
    switch (behaviour) {
    case 's':
        segfault();
        break;
    case 'e':
        std::exit(0);
    case 'h':
        for (;;) ::pause();
    case 'm': {
        const size_t size = size_t(10) << 30;
        auto* p = static_cast<volatile uint8_t*>(std::malloc(size));
        if (!p) af::sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "malloc of 10 GiB returned NULL");
        for (size_t i = 0; i < (size_t(512) << 20); i += 4096) p[i] = uint8_t(i);
        std::free(const_cast<uint8_t*>(p));
        break;
    }
    case 'f': {
        FILE* f = std::fopen("/etc/hostname", "rb");
        if (!f)
            af::sdk::fail(AF_ERR_IO, AF_NO_OFFSET, std::string("cannot open /etc/hostname: ") + std::strerror(errno));
        std::fclose(f);
        break;
    }
    case 'L':
        if (worker_socket()) forge_emit();
        break;
    }
}

af_status run_stage(const af_host* h, const af_stage_io* io, const af_options*, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (io->input_count != 1 || !io->inputs[0]) af::sdk::usage("hostile.stage takes one item");
        const af_item& in = *io->inputs[0];
        const std::string stem = stem_of(in.name);
        std::vector<std::pair<std::string, std::string>> meta;
        for (uint32_t i = 0; i < in.meta_count; ++i)
            if (in.meta[i].key) meta.emplace_back(in.meta[i].key, in.meta[i].value ? in.meta[i].value : "");
        if (in.texture) {
            af::Texture t = af::sdk::import_texture(*in.texture);
            for (auto& b : t.data) b = uint8_t(~b);
            af::sdk::emit_texture(io, stem + "-inv.png", t, meta);
            return;
        }
        if (in.size < 5 || std::memcmp(in.bytes, "HSTL", 4) != 0) af::sdk::invalid(0, "not a hostile file");
        misbehave_in_stage(char(in.bytes[4]));
        std::vector<uint8_t> bytes(6 + in.size);
        std::memcpy(bytes.data(), "stage:", 6);
        std::memcpy(bytes.data() + 6, in.bytes, in.size);
        af::sdk::emit_bytes(io, stem + ".bin", bytes, meta);
        const uint8_t shade = in.size > 5 ? in.bytes[5] : 0x80;
        af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 2, 2});
        std::memset(t.data.data(), shade, t.data.size());
        meta.emplace_back("shade", std::to_string(shade));
        af::sdk::emit_texture(io, stem + ".png", t, meta);
        (void)h;
    });
}

af_stage make_stage() {
    af_stage s{};
    af::sdk::init_header(s);
    s.name = "hostile.stage";
    s.description = "misbehaves on demand (isolation tests)";
    s.version = 1;
    s.kind = AF_STAGE_MAP;
    s.takes = AF_STAGE_TAKES_BYTES | AF_STAGE_TAKES_TEXTURE;
    s.run = run_stage;
    return s;
}

const af_plugin* table(const af_host*) {
    static const af_container container = make_container();
    static const af_container* const containers[] = {&container};
    static const af_stage stage = make_stage();
    static const af_stage* const stages[] = {&stage};
    static const af_plugin p = af::sdk::make_plugin("hostile", "1.0", "misbehaves on demand (isolation tests)",
                                                    {.containers = containers, .stages = stages});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
