#include "host/isolation/container_proxy.hpp"
#include "host/isolation/replies.hpp"

#include "assetforge/plugin.hpp"
#include "host/declared_dims.hpp"
#include "host/host_services.hpp"
#include "host/isolation/crash_handler.hpp"
#include "host/isolation/isolation.hpp"
#include "host/isolation/shared_memory.hpp"
#include "host/isolation/texture_wire.hpp"
#include "host/isolation/worker_pool.hpp"
#include "host/plugin_notes.hpp"
#include "host/plugin_registry.hpp"
#include "host/probe_failures.hpp"
#include "host/read_allowance.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>

namespace af::host::isolation {
namespace {

namespace fs = std::filesystem;

struct Slot {
    const LoadedPlugin* plugin = nullptr;
    af_container real{};
    uint32_t index = 0;
    bool third_party = false; // decided once: the check resolves paths
    bool sealed = false;      // its code is only in workers, whatever the mode
};

bool isolated(const Slot& s) {
    const Mode m = settings().mode;
    return s.sealed || m == Mode::All || (m == Mode::ThirdParty && s.third_party);
}

constexpr size_t kContainerSlots = 256;
std::array<Slot, kContainerSlots> g_slots;
std::atomic<size_t> g_used{0};

// Log lines and read warnings from a worker, attributed to the file of the call.
auto notes_for(const Slot& s, const af_input* in) {
    return [&s, in](const Message& m) {
        Reader r(m.body);
        if (m.op == Op::Log) {
            const int32_t level = r.i32();
            const std::string text = r.str();
            const std::string file = in && in->path ? std::string(in->path) : current_note_file();
            const std::string line =
                (file.empty() ? std::string() : file + ": ") + text + " (plugin '" + s.plugin->name + "')";
            services()->log(level, line.c_str());
        } else if (m.op == Op::Warn && in && in->warn) {
            const uint64_t offset = r.u64();
            const std::string text = r.str();
            in->warn(in->diag_ctx, offset, text.c_str());
        }
    };
}

// The input's bytes in a memfd: the one copy the crossing costs.
int input_fd(const af_input* in) {
    void* map;
    int fd = make_shared(in->size, &map);
    if (fd < 0) return -1;
    if (in->size) std::memcpy(map, in->data, in->size);
    ::munmap(map, in->size ? in->size : 1);
    return fd;
}

std::string what_of(const char* call, const af_input* in) {
    return std::string(call) + (in && in->path ? std::string(" of ") + in->path : std::string());
}

int32_t do_probe(const Slot& s, const uint8_t* head, uint64_t size, uint64_t file_size, const char* path) {
    if (!isolated(s)) {
        CallScope scope(s.plugin->name.c_str(), "probe", path, in_process_remedy(s.third_party, true));
        return s.real.probe_size ? s.real.probe_size(head, size, file_size, path) : s.real.probe(head, size, path);
    }
    const std::string file = path ? path : "";
    // The same file is probed under different names (its path while the action is sized, its name when read):
    // what identifies the probe is the file's name, size and head.
    const std::string probed = fs::path(file).filename().string() + '\0' + std::to_string(file_size) + '\0' +
                               std::to_string(std::hash<std::string_view>{}(
                                   std::string_view(reinterpret_cast<const char*>(head), size_t(size))));
    if (probe_timed_out_before(*s.plugin, probed)) return AF_PROBE_NO;
    Writer w;
    w.u32(s.index).str(file).u64(size).raw(head, size).u64(file_size);
    CallOutcome o = call_worker(*s.plugin, Op::Probe, w.bytes(), {}, std::string("probe of ") + (path ? path : "?"),
                                notes_for(s, nullptr));
    if (!o.ok) {
        // A probe that failed claims nothing. Whether that is worth a warning is decided once every container has
        // probed the file (plugin_registry.cpp: container_for).
        report_probe_failure(*s.plugin, o.timed_out ? ProbeFailure::TimedOut : ProbeFailure::Crashed, probed,
                             o.failure);
        return AF_PROBE_NO;
    }
    return probe_reply(o.reply);
}

// Sends a call whose request is (index, path, options, input size) + the input memfd.
CallOutcome call_with_input(const Slot& s, Op op, const char* call, const af_input* in, const af_options* opts) {
    Writer w;
    w.u32(s.index).str(in->path ? in->path : "");
    put_options(w, opts);
    w.u64(in->size);
    // A small input travels inside the message (the worker takes a call with no descriptor to carry its bytes).
    if (in->size <= kInlineBytes && w.bytes().size() + in->size + sizeof(uint32_t) <= kMaxMessage) {
        if (in->size) w.raw(in->data, size_t(in->size));
        return call_worker(*s.plugin, op, w.bytes(), {}, what_of(call, in), notes_for(s, in));
    }
    int fd = input_fd(in);
    if (fd < 0) {
        CallOutcome o;
        o.status = AF_ERR_NO_MEMORY;
        o.failure = "cannot share the input with the plugin worker";
        return o;
    }
    CallOutcome o = call_worker(*s.plugin, op, w.bytes(), {fd}, what_of(call, in), notes_for(s, in));
    ::close(fd);
    return o;
}

} // namespace

af_status read_within_dims(const af_container& c, const std::string& plugin, const af_host* host, const af_input* in,
                           const af_options* opts, af_texture* out, af_error* e) {
    if (!has_dims(c)) return c.read(host, in, opts, out, e);
    af_dims d{};
    af_status st = call_dims(c, host, in->path, in->data, in->size, opts, &d, e);
    if (st != AF_OK) return st;
    const uint64_t allowance = read_allowance(d);
    AllowanceScope counted(allowance);
    st = c.read(host, in, opts, out, e);
    if (const uint64_t asked = counted.refused()) {
        // Whatever the plugin made of the NULL, the read is refused, and the message says why.
        if (st == AF_OK) {
            host->free(out->data);
            host->free(out->palette);
            out->data = out->palette = nullptr;
        }
        set_error(e, AF_ERR_NO_MEMORY, over_allowance_text(plugin, d, allowance, asked));
        return AF_ERR_NO_MEMORY;
    }
    return st;
}

namespace {

af_status do_dims(const Slot& s, const af_host* host, const af_input* in, const af_options* opts, af_dims* out,
                  af_error* e) {
    if (!isolated(s)) {
        CallScope scope(s.plugin->name.c_str(), "dims", in ? in->path : nullptr,
                        in_process_remedy(s.third_party, true));
        return s.real.dims(host, in, opts, out, e);
    }
    CallOutcome o = call_with_input(s, Op::Dims, "dims", in, opts);
    if (!o.ok) {
        set_error(e, o.status, o.failure);
        return af_status(o.status);
    }
    return dims_reply(o.reply, s.plugin->name, out, e);
}

af_status do_read(const Slot& s, const af_host* host, const af_input* in, const af_options* opts, af_texture* out,
                  af_error* e) {
    if (!isolated(s)) {
        CallScope scope(s.plugin->name.c_str(), "read", in ? in->path : nullptr,
                        in_process_remedy(s.third_party, true));
        return read_within_dims(s.real, s.plugin->name, host, in, opts, out, e);
    }
    CallOutcome o = call_with_input(s, Op::Read, "read", in, opts);
    if (!o.ok) {
        set_error(e, o.status, o.failure);
        return af_status(o.status);
    }
    thread_local KvStore meta; // af_texture.meta stays valid until this thread's next read
    return read_reply(o.reply, s.plugin->name, meta, out, e);
}

af_status do_info(const Slot& s, const af_host* host, const af_input* in, const af_options* opts, af_info_text* out,
                  af_error* e) {
    if (!isolated(s)) {
        CallScope scope(s.plugin->name.c_str(), "info", in ? in->path : nullptr,
                        in_process_remedy(s.third_party, true));
        return s.real.info(host, in, opts, out, e);
    }
    CallOutcome o = call_with_input(s, Op::Info, "info", in, opts);
    if (!o.ok) {
        set_error(e, o.status, o.failure);
        return af_status(o.status);
    }
    return info_reply(o.reply, s.plugin->name, out, e);
}

// A copy of a texture buffer in a memfd, or -1.
int buffer_fd(const uint8_t* data, uint64_t size) {
    void* map;
    int fd = make_shared(size, &map);
    if (fd < 0) return -1;
    std::memcpy(map, data, size);
    ::munmap(map, size ? size : 1);
    return fd;
}

af_status do_write(const Slot& s, const af_host* host, const af_texture* tex, const af_options* opts, af_sink* sink,
                   af_error* e) {
    if (!isolated(s)) {
        CallScope scope(s.plugin->name.c_str(), "write", nullptr, in_process_remedy(s.third_party, true));
        return s.real.write(host, tex, opts, sink, e);
    }
    Writer w;
    w.u32(s.index);
    put_options(w, opts);
    put_texture_desc(w, *tex);
    std::vector<int> fds;
    if (tex->data && tex->data_size) fds.push_back(buffer_fd(tex->data, tex->data_size));
    if (tex->palette && tex->palette_size) fds.push_back(buffer_fd(tex->palette, tex->palette_size));
    if (std::find(fds.begin(), fds.end(), -1) != fds.end()) {
        close_fds(fds);
        set_error(e, AF_ERR_NO_MEMORY, "cannot share the texture with the plugin worker");
        return AF_ERR_NO_MEMORY;
    }
    const std::string what =
        std::string("write of a ") + std::to_string(tex->width) + "x" + std::to_string(tex->height) + " texture";
    CallOutcome o = call_worker(*s.plugin, Op::Write, w.bytes(), fds, what, notes_for(s, nullptr));
    close_fds(fds);
    if (!o.ok) {
        set_error(e, o.status, o.failure);
        return af_status(o.status);
    }
    return write_reply(o.reply, s.plugin->name, sink, e);
}

template <size_t N> int32_t probe_at(const uint8_t* head, uint64_t size, const char* path) {
    return do_probe(g_slots[N], head, size, size, path);
}
template <size_t N> int32_t probe_size_at(const uint8_t* head, uint64_t size, uint64_t file_size, const char* path) {
    return do_probe(g_slots[N], head, size, file_size, path);
}
template <size_t N>
af_status read_at(const af_host* h, const af_input* in, const af_options* o, af_texture* out, af_error* e) {
    return do_read(g_slots[N], h, in, o, out, e);
}
template <size_t N>
af_status info_at(const af_host* h, const af_input* in, const af_options* o, af_info_text* out, af_error* e) {
    return do_info(g_slots[N], h, in, o, out, e);
}
template <size_t N>
af_status dims_at(const af_host* h, const af_input* in, const af_options* o, af_dims* out, af_error* e) {
    return do_dims(g_slots[N], h, in, o, out, e);
}
template <size_t N>
af_status write_at(const af_host* h, const af_texture* t, const af_options* o, af_sink* out, af_error* e) {
    return do_write(g_slots[N], h, t, o, out, e);
}

struct ContainerEntry {
    decltype(af_container::probe) probe;
    decltype(af_container::read) read;
    decltype(af_container::info) info;
    decltype(af_container::write) write;
    decltype(af_container::dims) dims;
    decltype(af_container::probe_size) probe_size;
};

template <size_t... I>
constexpr std::array<ContainerEntry, sizeof...(I)> make_container_entries(std::index_sequence<I...>) {
    return {ContainerEntry{&probe_at<I>, &read_at<I>, &info_at<I>, &write_at<I>, &dims_at<I>, &probe_size_at<I>}...};
}
constexpr auto kContainerEntries = make_container_entries(std::make_index_sequence<kContainerSlots>{});

} // namespace

void route_container(const LoadedPlugin& plugin, uint32_t index, af_container& c) {
    const size_t n = g_used.fetch_add(1);
    if (n >= kContainerSlots) return;
    g_slots[n] = {&plugin, c, index, third_party(plugin), plugin.sealed};
    c.probe = kContainerEntries[n].probe;
    if (c.read) c.read = kContainerEntries[n].read;
    if (c.info) c.info = kContainerEntries[n].info;
    if (c.write) c.write = kContainerEntries[n].write;
    if (c.dims) c.dims = kContainerEntries[n].dims;
    if (c.probe_size) c.probe_size = kContainerEntries[n].probe_size;
}

} // namespace af::host::isolation
