#include "host/isolation/codec_proxy.hpp"

#include "host/host_services.hpp"
#include "host/isolation/replies.hpp"
#include "host/isolation/texture_wire.hpp"
#include "host/isolation/worker_pool.hpp"
#include "host/plugin_notes.hpp"
#include "host/plugin_registry.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstring>
#include <string>
#include <utility>

namespace af::host::isolation {
namespace {
namespace codec_routes { // a unity build puts this file beside call_scopes.cpp and container_proxy.cpp

struct Slot {
    const LoadedPlugin* plugin = nullptr;
    uint32_t index = 0;
};

constexpr size_t kCodecSlots = 128;
std::array<Slot, kCodecSlots> g_slots;
std::atomic<size_t> g_used{0};

void put_surface(Writer& w, const af_surface& s) {
    w.u32(s.format).u32(s.width).u32(s.height).u32(s.depth).u64(s.size);
}

// A memory file of `size` bytes holding a copy of `data` (when given); its mapping in *map, or -1.
int surface_fd(const uint8_t* data, uint64_t size, void** map) {
    const int fd = make_shared(size, map);
    if (fd >= 0 && data && size) std::memcpy(*map, data, size);
    return fd;
}

af_status call_codec(const Slot& s, Op op, const af_surface* src, af_surface* dst, const af_options* opts,
                     af_error* e) {
    const char* call = op == Op::Decode ? "decode" : "encode";
    if (!src || !dst || (src->size && !src->data) || (dst->size && !dst->data)) {
        set_error(e, AF_ERR_USAGE, std::string(call) + " without its surfaces");
        return AF_ERR_USAGE;
    }
    Writer w;
    w.u32(s.index);
    put_options(w, opts);
    put_surface(w, *src);
    put_surface(w, *dst);
    void* src_map = MAP_FAILED;
    void* dst_map = MAP_FAILED;
    std::vector<int> fds = {surface_fd(src->data, src->size, &src_map), surface_fd(nullptr, dst->size, &dst_map)};
    if (src_map != MAP_FAILED) ::munmap(src_map, src->size ? src->size : 1);
    if (fds[0] < 0 || fds[1] < 0) {
        if (dst_map != MAP_FAILED) ::munmap(dst_map, dst->size ? dst->size : 1);
        close_fds(fds);
        set_error(e, AF_ERR_NO_MEMORY, "cannot share the surfaces with the plugin worker");
        return AF_ERR_NO_MEMORY;
    }
    const std::string who = s.plugin->name;
    const std::string what =
        std::string(call) + " of a " + std::to_string(src->width) + "x" + std::to_string(src->height) + " surface";
    CallOutcome o = call_worker(*s.plugin, op, w.bytes(), fds, what, [&who](const Message& m) {
        if (m.op != Op::Log) return;
        Reader r(m.body);
        const int32_t level = r.i32();
        const std::string text = r.str();
        const std::string file = current_note_file();
        const std::string line = (file.empty() ? std::string() : file + ": ") + text + " (plugin '" + who + "')";
        services()->log(level, line.c_str());
    });
    close_fds(fds);
    af_status st = af_status(o.status);
    if (!o.ok)
        set_error(e, o.status, o.failure);
    else {
        close_fds(o.reply.fds);
        try {
            Reader r(o.reply.body);
            st = read_status(r, e);
        } catch (const std::exception& x) {
            set_error(e, AF_ERR_INTERNAL, "plugin '" + who + "' worker answered badly: " + x.what());
            st = AF_ERR_INTERNAL;
        }
        // The destination is the host's own memory file, sealed at its size: whatever the worker wrote into it is
        // only pixels, never a size to trust.
        if (st == AF_OK && dst->size) std::memcpy(dst->data, dst_map, dst->size);
    }
    ::munmap(dst_map, dst->size ? dst->size : 1);
    return st;
}

template <size_t N>
af_status decode_at(const af_host*, const af_surface* src, af_surface* dst, const af_options* o, af_error* e) {
    return call_codec(g_slots[N], Op::Decode, src, dst, o, e);
}
template <size_t N>
af_status encode_at(const af_host*, const af_surface* src, af_surface* dst, const af_options* o, af_error* e) {
    return call_codec(g_slots[N], Op::Encode, src, dst, o, e);
}

struct Entry {
    decltype(af_codec::decode) decode;
    decltype(af_codec::encode) encode;
};
template <size_t... I> constexpr std::array<Entry, sizeof...(I)> make_entries(std::index_sequence<I...>) {
    return {Entry{&decode_at<I>, &encode_at<I>}...};
}
constexpr auto kEntries = make_entries(std::make_index_sequence<kCodecSlots>{});

} // namespace codec_routes
} // namespace

void route_codec(const LoadedPlugin& plugin, uint32_t index, af_codec& c) {
    namespace r = codec_routes;
    const size_t n = r::g_used.fetch_add(1);
    if (n >= r::kCodecSlots) return;
    r::g_slots[n] = {&plugin, index};
    if (c.decode) c.decode = r::kEntries[n].decode;
    if (c.encode) c.encode = r::kEntries[n].encode;
}

} // namespace af::host::isolation
