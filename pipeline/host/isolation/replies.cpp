#include "host/isolation/replies.hpp"

#include "host/host_services.hpp"
#include "host/isolation/shared_memory.hpp"

#include <sys/mman.h>

#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace af::host::isolation {
namespace {

// Takes the reply's descriptors in order; each is mapped once it is checked to hold what the reply claims. What
// was mapped is released again unless the reply is accepted as a whole (keep()): a reply that fails half-way
// leaves nothing mapped, whichever buffer it failed on.
// A reply with no descriptor at all carries its buffers inside the message, in order (the worker sends them so
// when they are small); each is copied into the host's own allocation, which the host's free releases as it does
// a mapping.
class Buffers {
  public:
    explicit Buffers(Message& m) : m_(m), in_message_(m.fds.empty()) {}
    Buffers(const Buffers&) = delete;
    Buffers& operator=(const Buffers&) = delete;
    ~Buffers() {
        close_fds(m_.fds);
        for (void* p : mapped_) services()->free(p);
    }
    uint8_t* adopt(Reader& r, uint64_t size, const char* what) {
        if (in_message_) return take(r, size, what);
        if (next_ >= m_.fds.size()) throw std::runtime_error(std::string("no descriptor for its ") + what);
        auto* p = static_cast<uint8_t*>(adopt_shared(std::exchange(m_.fds[next_++], -1), size));
        if (!p)
            throw std::runtime_error(std::string("its ") + what + " is not a sealed memory file of the size claimed");
        mapped_.push_back(p);
        return p;
    }
    // The caller owns every buffer adopted so far.
    void keep() { mapped_.clear(); }

  private:
    uint8_t* take(Reader& r, uint64_t size, const char* what) {
        if (size > r.left()) throw std::runtime_error(std::string("its ") + what + " is cut short");
        auto* p = static_cast<uint8_t*>(services()->alloc(size));
        if (!p) throw std::runtime_error(std::string("no memory for its ") + what);
        mapped_.push_back(p);
        if (size) std::memcpy(p, r.raw(size_t(size)).data(), size_t(size));
        return p;
    }

    Message& m_;
    bool in_message_;
    size_t next_ = 0;
    std::vector<void*> mapped_; // mapped or allocated: the host's free releases either
};

af_status answered_badly(af_error* e, const std::string& plugin, const std::exception& x) {
    set_error(e, AF_ERR_INTERNAL, "plugin '" + plugin + "' worker answered badly: " + x.what());
    return AF_ERR_INTERNAL;
}

// A text the host will read up to its NUL: the NUL must be inside the bytes the worker shared.
char* adopt_text(Buffers& b, Reader& r, uint64_t size, const char* what) {
    if (size == 0) throw std::runtime_error(std::string("its ") + what + " is empty (not even a terminating NUL)");
    char* p = reinterpret_cast<char*>(b.adopt(r, size, what));
    if (p[size - 1] != '\0') throw std::runtime_error(std::string("its ") + what + " does not end in a NUL");
    return p;
}

} // namespace

void set_error(af_error* e, int status, const std::string& text) {
    if (!e) return;
    e->code = status;
    e->offset = AF_NO_OFFSET;
    std::snprintf(e->message, sizeof e->message, "%s", text.c_str());
}

af_status read_status(Reader& r, af_error* e) {
    const int32_t code = r.i32();
    const uint64_t offset = r.u64();
    const std::string msg = r.str();
    // Only the ABI's statuses are af_status values; anything else is no status at all.
    if (code < AF_OK || code > AF_ERR_INTERNAL)
        throw std::runtime_error("status " + std::to_string(code) + " is none the plugin interface defines");
    const af_status st = af_status(code);
    if (st != AF_OK && e) {
        e->code = st;
        e->offset = offset;
        std::snprintf(e->message, sizeof e->message, "%s", msg.c_str());
    }
    return st;
}

int32_t probe_reply(Message& reply) {
    close_fds(reply.fds);
    if (reply.body.size() < sizeof(int32_t)) return AF_PROBE_NO;
    Reader r(reply.body);
    return r.i32();
}

af_status dims_reply(Message& reply, const std::string& plugin, af_dims* out, af_error* e) {
    close_fds(reply.fds);
    try {
        Reader r(reply.body);
        const af_status st = read_status(r, e);
        if (st == AF_OK) get_dims(r, *out);
        return st;
    } catch (const std::exception& x) {
        return answered_badly(e, plugin, x);
    }
}

af_status read_reply(Message& reply, const std::string& plugin, KvStore& meta, af_texture* out, af_error* e) {
    Buffers buffers(reply);
    try {
        Reader r(reply.body);
        const af_status st = read_status(r, e);
        if (st != AF_OK) return st;
        get_texture_desc(r, *out, meta);
        uint8_t* data = out->data_size ? buffers.adopt(r, out->data_size, "texture data") : nullptr;
        uint8_t* palette = out->palette_size ? buffers.adopt(r, out->palette_size, "palette") : nullptr;
        buffers.keep();
        out->data = data;
        out->palette = palette;
        return AF_OK;
    } catch (const std::exception& x) {
        return answered_badly(e, plugin, x);
    }
}

af_status info_reply(Message& reply, const std::string& plugin, af_info_text* out, af_error* e) {
    Buffers buffers(reply);
    try {
        Reader r(reply.body);
        const af_status st = read_status(r, e);
        if (st != AF_OK) return st;
        const uint64_t json = r.u64(), text = r.u64();
        char* j = json ? adopt_text(buffers, r, json, "JSON") : nullptr;
        char* t = text ? adopt_text(buffers, r, text, "text") : nullptr;
        buffers.keep();
        out->json = j;
        out->text = t;
        return AF_OK;
    } catch (const std::exception& x) {
        return answered_badly(e, plugin, x);
    }
}

af_status write_reply(Message& reply, const std::string& plugin, af_sink* sink, af_error* e) {
    Buffers buffers(reply);
    try {
        Reader r(reply.body);
        const af_status st = read_status(r, e);
        if (st != AF_OK) return st;
        const uint64_t size = r.u64();
        const uint8_t* bytes = buffers.adopt(r, size, "written bytes"); // released when buffers ends
        const af_status written = sink->write(sink->ctx, bytes, size);
        if (written != AF_OK) set_error(e, written, "writing the output failed");
        return written;
    } catch (const std::exception& x) {
        return answered_badly(e, plugin, x);
    }
}

} // namespace af::host::isolation
