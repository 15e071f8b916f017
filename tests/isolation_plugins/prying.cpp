// A third-party plugin whose code tries to get out before any call reaches it: its ELF constructor and its entry
// function each open a 0600 file outside the project (AF_PRYING_SECRET) and, when that works, write a marker file
// beside it naming who read it; the constructor also opens a TCP socket. Wherever it is loaded, what it managed is
// kept and said by every read as a warning line ("pried: …"), so a test sees that the code ran and what it could do.
//
// It is also a codec of BC1 (UNORM and UNORM_SRGB) for the tests of codecs in workers (run with --plugin-override
// prying, which puts it before the bundled bc): decode fills every texel with the block's first byte as grey, and
// dereferences NULL when that byte is 0xEE; encode writes the first texel's red into the first byte of every block. Its
// container reads ".prying" files, "PRY" and one byte, as a 4x4 BC1 texture whose block starts with that byte. Its
// command `pry` prints what the plugin managed where it runs.
#include "assetforge/plugin.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#ifndef AF_PRYING_SECRET
#error "AF_PRYING_SECRET: the 0600 file the plugin tries to read"
#endif

namespace {

// What the constructor and the entry function tried, and how it went. A function's static: the constructor runs
// before the library's own global objects are initialised, which would then clear a global string.
std::string& pried() {
    static std::string s;
    return s;
}

std::string errno_name(int e) { return e == EACCES ? "EACCES" : e == EPERM ? "EPERM" : std::strerror(e); }

// Reads the secret; on success leaves "<secret>.read-by-<who>" holding what it read.
void pry(const char* who) {
    const int fd = ::open(AF_PRYING_SECRET, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        pried() += std::string(" ") + who + ":secret-refused(" + errno_name(errno) + ")";
        return;
    }
    char buf[256];
    const ssize_t n = ::read(fd, buf, sizeof buf);
    ::close(fd);
    pried() += std::string(" ") + who + ":secret-read(" + std::to_string(n) + " bytes)";
    const std::string marker = std::string(AF_PRYING_SECRET) + ".read-by-" + who;
    const int out = ::open(marker.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (out < 0) {
        pried() += std::string(" ") + who + ":marker-refused(" + errno_name(errno) + ")";
        return;
    }
    if (n > 0 && ::write(out, buf, size_t(n)) != n) pried() += " marker-short";
    ::close(out);
}

// A TCP socket, and a connection to the discard port of this machine (refused or not, the attempt is the point).
void reach_network() {
    const int s = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0) {
        pried() += " constructor:socket-refused(" + errno_name(errno) + ")";
        return;
    }
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(9);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int rc = ::connect(s, reinterpret_cast<const sockaddr*>(&a), sizeof a);
    pried() += rc == 0 ? " constructor:socket-connected" : " constructor:socket-opened";
    ::close(s);
}

__attribute__((constructor)) void at_load() {
    pry("constructor");
    reach_network();
}

int32_t probe(const uint8_t* head, uint64_t size, const char*) {
    return size >= 4 && std::memcmp(head, "PRY", 3) == 0 ? AF_PROBE_MAGIC : AF_PROBE_NO;
}

af_status read(const af_host* h, const af_input* in, const af_options*, af_texture* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (in->size < 4) af::sdk::invalid(in->size, "too short");
        h->log(AF_LOG_WARN, ("pried:" + pried()).c_str());
        af::Texture t(af::TextureDesc{af::FMT_BC1_UNORM, 4, 4});
        std::memset(t.data.data(), 0, t.data.size());
        t.data[0] = in->data[3];
        af::sdk::export_texture(h, t, out);
    });
}

__attribute__((no_sanitize("undefined"))) void segfault() { *static_cast<volatile int*>(nullptr) = 1; }

af_status decode(const af_host*, const af_surface* src, af_surface* dst, const af_options*, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (dst->format != af::FMT_R8G8B8A8_UNORM && dst->format != af::FMT_R8G8B8A8_UNORM_SRGB)
            af::sdk::fail(AF_ERR_UNSUPPORTED, AF_NO_OFFSET, "decodes to RGBA8 only");
        const uint8_t grey = src->size ? src->data[0] : 0;
        if (grey == 0xEE) segfault();
        for (uint64_t i = 0; i + 4 <= dst->size; i += 4) {
            dst->data[i] = dst->data[i + 1] = dst->data[i + 2] = grey;
            dst->data[i + 3] = 255;
        }
    });
}

af_status encode(const af_host*, const af_surface* src, af_surface* dst, const af_options*, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (src->format != af::FMT_R8G8B8A8_UNORM && src->format != af::FMT_R8G8B8A8_UNORM_SRGB)
            af::sdk::fail(AF_ERR_UNSUPPORTED, AF_NO_OFFSET, "encodes from RGBA8 only");
        std::memset(dst->data, 0, dst->size);
        for (uint64_t b = 0; b + 8 <= dst->size; b += 8) dst->data[b] = src->size ? src->data[0] : 0;
    });
}

// `assetforge pry`: what the plugin managed where the command runs (in process, when the user trusts it).
int32_t pry_command(const af_host*, int32_t, const char* const*) {
    std::printf("pried:%s\n", pried().c_str());
    return 0;
}

af_container make_container() {
    af_container c{};
    af::sdk::init_header(c);
    c.name = "prying";
    c.extensions = ".prying";
    c.version = 1;
    c.caps = AF_CAN_READ;
    c.probe = probe;
    c.read = read;
    return c;
}

af_codec make_codec() {
    static const uint32_t formats[] = {af::FMT_BC1_UNORM, af::FMT_BC1_UNORM_SRGB};
    af_codec c{};
    af::sdk::init_header(c);
    c.name = "prying-bc1";
    c.version = 1;
    c.formats = formats;
    c.format_count = 2;
    c.decode = decode;
    c.encode = encode;
    return c;
}

const af_plugin* table(const af_host*) {
    pry("entry");
    static const af_container container = make_container();
    static const af_container* const containers[] = {&container};
    static const af_codec codec = make_codec();
    static const af_codec* const codecs[] = {&codec};
    static const af_command command = [] {
        af_command c{};
        af::sdk::init_header(c);
        c.name = "pry";
        c.summary = "says what the prying plugin could read";
        c.run = pry_command;
        return c;
    }();
    static const af_command* const commands[] = {&command};
    static const af_plugin p = af::sdk::make_plugin("prying", "1.0", "reads what it should not (isolation tests)",
                                                    {.containers = containers, .codecs = codecs, .commands = commands});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
