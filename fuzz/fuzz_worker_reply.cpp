// A plugin worker runs third-party code and may answer anything: arbitrary
// bytes become one reply (its kind, its descriptors: memory files of any size,
// sealed or not, or other kinds of file, and its body), sent over a real
// socket pair and decoded as the host decodes it. Whatever the reply says, the
// host answers with a status and never crashes, reads past a buffer or
// allocates what the reply claims; what it accepts holds together. Kind 5 is
// an item a plugin stage emits (Op::Emit), handed to an emit that reads every
// byte of what it is given.
#include "host/host_services.hpp"
#include "host/isolation/replies.hpp"
#include "host/isolation/shared_memory.hpp"
#include "host/isolation/stage_replies.hpp"
#include "host/isolation/wire.hpp"
#include "worker_channel.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace iso = af::host::isolation;

namespace {

struct Input {
    const uint8_t* p;
    size_t n;
    uint8_t byte() {
        if (!n) return 0;
        --n;
        return *p++;
    }
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4; ++i) v = v << 8 | byte();
        return v;
    }
};

// One descriptor as a lying worker might pass it: a memory file (sealed, or
// not yet) of a size near the body's claims, or a pipe.
int make_fd(Input& in) {
    const uint8_t kind = in.byte();
    if (kind % 5 == 4) {
        int p[2];
        if (::pipe(p) != 0) return -1;
        ::close(p[1]);
        return p[0];
    }
    const uint32_t size = in.u32() % (1u << 20);
    int fd = ::memfd_create("fuzz", MFD_CLOEXEC | ((kind & 1) ? MFD_ALLOW_SEALING : 0));
    if (fd < 0) return -1;
    if (::ftruncate(fd, size) != 0) {
        ::close(fd);
        return -1;
    }
    if (size && (kind & 2)) {
        // The last byte set: a text without its NUL, unless the worker meant one.
        const uint8_t last = in.byte();
        ::pwrite(fd, &last, 1, size - 1);
    }
    return fd;
}

struct Sink {
    uint64_t got = 0;
    static af_status write(void* ctx, const void* data, uint64_t size) {
        auto* s = static_cast<Sink*>(ctx);
        // Touch both ends: the host must have mapped everything it hands on.
        if (size) {
            volatile uint8_t a = static_cast<const uint8_t*>(data)[0];
            volatile uint8_t b = static_cast<const uint8_t*>(data)[size - 1];
            (void)a;
            (void)b;
        }
        s->got += size;
        return AF_OK;
    }
};

void touch(const void* p, uint64_t size) {
    if (!size) return;
    if (!p) std::abort();
    volatile uint8_t a = static_cast<const uint8_t*>(p)[0];
    volatile uint8_t b = static_cast<const uint8_t*>(p)[size - 1];
    (void)a;
    (void)b;
}

// The engine's emit, as far as reading goes: every byte and string of the item.
af_status emit_reading(void*, const af_item* it) {
    if (!it || !it->name) std::abort();
    (void)std::strlen(it->name);
    for (uint32_t i = 0; i < it->meta_count; ++i) {
        if (!it->meta[i].key || !it->meta[i].value) std::abort();
        (void)std::strlen(it->meta[i].key);
        (void)std::strlen(it->meta[i].value);
    }
    if (it->texture) {
        touch(it->texture->data, it->texture->data_size);
        touch(it->texture->palette, it->texture->palette_size);
    } else {
        touch(it->bytes, it->size);
    }
    return AF_OK;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Input in{data, size};
    const uint8_t kind = in.byte() % 6;
    std::vector<int> fds;
    for (uint8_t i = 0, n = in.byte() % (iso::kMaxFds + 1); i < n; ++i) {
        const int fd = make_fd(in);
        if (fd >= 0) fds.push_back(fd);
    }
    const std::vector<uint8_t> body(in.p, in.p + in.n);

    iso::Message reply;
    if (!af::fuzz::through_socket(body, fds, reply)) return 0;
    if (reply.op != iso::Op::Reply || reply.body != body) std::abort();

    af_error e{};
    switch (kind) {
    case 0:
        iso::probe_reply(reply);
        break;
    case 1: {
        af_dims d{};
        iso::dims_reply(reply, "fuzz", &d, &e);
        break;
    }
    case 2: {
        iso::KvStore meta;
        af_texture t{};
        if (iso::read_reply(reply, "fuzz", meta, &t, &e) == AF_OK) {
            touch(t.data, t.data_size);
            touch(t.palette, t.palette_size);
            for (uint32_t i = 0; i < t.meta_count; ++i)
                if (!t.meta[i].key || !t.meta[i].value) std::abort();
            af::host::services()->free(t.data); // a mapping, or (small, inside the reply) the host's allocation
            af::host::services()->free(t.palette);
        }
        break;
    }
    case 3: {
        af_info_text t{};
        if (iso::info_reply(reply, "fuzz", &t, &e) == AF_OK) {
            // Read as the host reads them: up to their NUL, which must be there.
            if (t.json) (void)std::strlen(t.json);
            if (t.text) (void)std::strlen(t.text);
            af::host::services()->free(t.json);
            af::host::services()->free(t.text);
        }
        break;
    }
    case 4: {
        Sink s;
        af_sink sink{&s, &Sink::write};
        iso::write_reply(reply, "fuzz", &sink, &e);
        break;
    }
    default: {
        af_stage_io io{};
        io.ctx = nullptr;
        io.emit = emit_reading;
        iso::EmitAllowance left{uint64_t(1) << 22, 16};
        iso::emitted_item(reply, "fuzz", &io, left, &e);
        break;
    }
    }
    if (!reply.fds.empty()) std::abort(); // every descriptor consumed
    return 0;
}
