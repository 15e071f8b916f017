#include "host/isolation/worker_main.hpp"

#include "assetforge/plugin.hpp"
#include "host/host_services.hpp"
#include "host/isolation/confinement.hpp"
#include "host/isolation/container_proxy.hpp"
#include "host/isolation/isolation.hpp"
#include "host/isolation/plugin_description.hpp"
#include "host/isolation/sandbox.hpp"
#include "host/isolation/stage_worker.hpp"
#include "host/isolation/texture_wire.hpp"
#include "host/isolation/wire.hpp"
#include "host/plugin_registry.hpp"
#include "host/read_allowance.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>

namespace af::host::isolation {
namespace {
// Set once the filter is on: a plugin that calls exit() runs the exit handlers, and a leak checker's
// would stop every thread through ptrace and /proc, which the sandbox denies, and die with its own
// status instead of the plugin's.
bool g_sandboxed = false;

constexpr int kSock = 3;
constexpr int kLibrary = 4; // the plugin's library: the host's sealed copy of it

// af_host.alloc in a worker: a block past kInlineBytes is a memfd, so what the plugin hands over crosses to the
// host as a descriptor, not as a copy. A smaller one is heap memory (fd -1): it crosses inside a message when it can
// (a stage's emitted item), which costs less than making, mapping and sealing a memory file on both sides, and is
// copied into a memory file where a descriptor is needed.
struct Block {
    int fd;
    uint64_t size;
};
std::mutex g_blocks_mutex;
std::map<void*, Block> g_blocks;
uint64_t g_held = 0;
uint64_t g_limit = 0;

void* take_block(uint64_t size, bool shared) {
    const uint64_t per_call = host::settings().max_texture_bytes;
    if (per_call && size > per_call) return nullptr;
    std::lock_guard lock(g_blocks_mutex);
    if (g_limit && (size > g_limit || g_held > g_limit - size)) return nullptr;
    if (!allowance_take(size ? size : 1)) return nullptr; // past what the read's dims declared
    void* p = nullptr;
    int fd = -1;
    if (shared)
        fd = make_shared(size, &p);
    else
        p = std::malloc(size ? size : 1);
    if (shared ? fd < 0 : !p) {
        allowance_give(size ? size : 1);
        return nullptr;
    }
    g_blocks[p] = {fd, size ? size : 1};
    g_held += size ? size : 1;
    return p;
}

void* worker_alloc(uint64_t size) { return take_block(size, size > kInlineBytes); }
void* shared_alloc(uint64_t size) { return take_block(size, true); }

void worker_free(void* p) {
    if (!p) return;
    std::lock_guard lock(g_blocks_mutex);
    auto it = g_blocks.find(p);
    if (it == g_blocks.end()) return; // not ours: a plugin bug the host's free would not survive either
    if (it->second.fd < 0) {
        std::free(p);
    } else {
        ::munmap(p, it->second.size);
        ::close(it->second.fd);
    }
    g_held -= it->second.size;
    allowance_give(it->second.size);
    g_blocks.erase(it);
}

// The memfd behind a block, handed to the host: the caller sends it, then closes it. The worker's own mapping goes
// first, because the host seals what it adopts against writes and refuses a file still mapped writable anywhere
// (a returned worker could otherwise change a buffer after the host checked it). Memory the plugin did not get
// from alloc as a memory file is copied into a new one first. -1 when there is no memory for that copy.
int hand_over(const void* p, uint64_t size) {
    void* from_alloc = nullptr;
    {
        std::lock_guard lock(g_blocks_mutex);
        auto it = g_blocks.find(const_cast<void*>(p));
        if (it != g_blocks.end() && it->second.fd >= 0 && it->second.size >= size) from_alloc = it->first;
    }
    if (!from_alloc) {
        from_alloc = shared_alloc(size);
        if (!from_alloc) return -1;
        std::memcpy(from_alloc, p, size);
    }
    std::lock_guard lock(g_blocks_mutex);
    auto it = g_blocks.find(from_alloc);
    const Block b = it->second;
    g_blocks.erase(it);
    ::munmap(from_alloc, b.size);
    g_held -= b.size;
    allowance_give(b.size);
    return b.fd;
}

// Sends a reply with the blocks handed over, then lets go of them.
void send_handing_over(Op op, const std::vector<uint8_t>& body, std::vector<int>& given) {
    send_message(kSock, op, body, given);
    close_fds(given);
}

// The memfd behind a block alloc returned, or -1 (a heap block, or not a block).
int existing_block_fd(const void* p, uint64_t size) {
    std::lock_guard lock(g_blocks_mutex);
    auto it = g_blocks.find(const_cast<void*>(p));
    return it != g_blocks.end() && it->second.size >= size ? it->second.fd : -1;
}

void worker_log(int32_t level, const char* msg) {
    Writer w;
    w.i32(level).str(msg ? std::string_view(msg).substr(0, 16000) : "");
    send_message(kSock, Op::Log, w.bytes());
}

void worker_warn(void*, uint64_t offset, const char* msg) {
    Writer w;
    w.u64(offset).str(msg ? std::string_view(msg).substr(0, 16000) : "");
    send_message(kSock, Op::Warn, w.bytes());
}

int32_t worker_cancelled() { return 0; } // the host stops a worker by killing it

// One worker per concurrent action: the plugin's loops run on this thread.
void worker_parallel_for(uint64_t begin, uint64_t end, uint64_t, af_range_fn fn, void* ctx) {
    if (begin < end) fn(ctx, begin, end);
}

void reply_error(Writer& w, af_status st, const af_error& e) {
    w.i32(st).u64(e.offset).str(st == AF_OK ? "" : e.message);
}

void serve_probe(const LoadedPlugin& p, Reader& r) {
    const af_container& c = p.containers.at(r.u32());
    const std::string path = r.str();
    const uint64_t n = r.u64();
    std::string_view head = r.raw(n);
    const uint64_t file_size = r.u64();
    const auto* h = reinterpret_cast<const uint8_t*>(head.data());
    Writer w;
    w.i32(c.probe_size ? c.probe_size(h, n, file_size, path.c_str()) : c.probe(h, n, path.c_str()));
    send_message(kSock, Op::Reply, w.bytes());
}

struct Input {
    std::string path;
    KvStore options;
    const uint8_t* data = nullptr;
    uint64_t size = 0;
    af_input in{};
    Input(Reader& r, const std::vector<int>& fds) {
        path = r.str();
        options.fill(r);
        size = r.u64();
        if (fds.empty() && size) { // a small input comes inside the message
            const std::string_view bytes = r.raw(size_t(size));
            copy.resize(bytes.size());
            std::memcpy(copy.data(), bytes.data(), bytes.size());
            data = copy.data();
        } else if (size) {
            data = static_cast<const uint8_t*>(map_shared(fds[0], size));
            mapped = data != nullptr;
        }
        if (size && !data) throw std::runtime_error("cannot map the input");
        sdk::init_header(in);
        in.path = path.c_str();
        in.data = data;
        in.size = size;
        in.warn = worker_warn;
    }
    ~Input() {
        if (mapped) ::munmap(const_cast<uint8_t*>(data), size);
    }

  private:
    std::vector<uint8_t> copy;
    bool mapped = false;
};

// A reply's buffers: inside the message when they fit there together, which costs less than a memory file each
// (the host takes a reply that carries no descriptor to carry its bytes, in order), else each handed over as the
// memory file behind it. Made once the reply's other fields are written.
class ReplyBuffers {
  public:
    ReplyBuffers(Writer& w, uint64_t total)
        : w_(w), in_message_(total <= kInlineBytes && w.bytes().size() + total + sizeof(uint32_t) <= kMaxMessage) {}
    void add(const void* p, uint64_t size) {
        if (in_message_)
            w_.raw(p, size_t(size));
        else
            give.push_back(hand_over(p, size));
    }
    std::vector<int> give;

  private:
    Writer& w_;
    bool in_message_;
};

void serve_read(const LoadedPlugin& p, Reader& r, const std::vector<int>& fds) {
    const af_container& c = p.containers.at(r.u32());
    Input input(r, fds);
    const af_options opts = input.options.options();
    af_texture out{};
    af_error e{};
    af_status st = read_within_dims(c, p.name, services(), &input.in, &opts, &out, &e);
    Writer w;
    reply_error(w, st, e);
    if (st == AF_OK) put_texture_desc(w, out);
    ReplyBuffers buffers(w, st != AF_OK ? 0 : (out.data ? out.data_size : 0) + (out.palette ? out.palette_size : 0));
    if (st == AF_OK) {
        if (out.data) buffers.add(out.data, out.data_size);
        if (out.palette) buffers.add(out.palette, out.palette_size);
    }
    send_handing_over(Op::Reply, w.bytes(), buffers.give);
    worker_free(out.data); // memory the plugin did not get from alloc, and a failed read's blocks
    worker_free(out.palette);
}

void serve_dims(const LoadedPlugin& p, Reader& r, const std::vector<int>& fds) {
    const af_container& c = p.containers.at(r.u32());
    Input input(r, fds);
    const af_options opts = input.options.options();
    af_dims d{};
    sdk::init_header(d);
    af_error e{};
    af_status st = c.dims ? c.dims(services(), &input.in, &opts, &d, &e) : AF_ERR_UNSUPPORTED;
    Writer w;
    reply_error(w, st, e);
    if (st == AF_OK) put_dims(w, d);
    send_message(kSock, Op::Reply, w.bytes());
}

void serve_info(const LoadedPlugin& p, Reader& r, const std::vector<int>& fds) {
    const af_container& c = p.containers.at(r.u32());
    Input input(r, fds);
    const af_options opts = input.options.options();
    af_info_text out{};
    af_error e{};
    af_status st = c.info(services(), &input.in, &opts, &out, &e);
    Writer w;
    reply_error(w, st, e);
    const uint64_t json = st == AF_OK && out.json ? std::strlen(out.json) + 1 : 0;
    const uint64_t text = st == AF_OK && out.text ? std::strlen(out.text) + 1 : 0;
    if (st == AF_OK) w.u64(json).u64(text);
    ReplyBuffers buffers(w, json + text);
    if (json) buffers.add(out.json, json);
    if (text) buffers.add(out.text, text);
    send_handing_over(Op::Reply, w.bytes(), buffers.give);
    worker_free(out.json);
    worker_free(out.text);
}

void serve_write(const LoadedPlugin& p, Reader& r, const std::vector<int>& fds) {
    const af_container& c = p.containers.at(r.u32());
    KvStore options, meta;
    options.fill(r);
    af_texture t{};
    get_texture_desc(r, t, meta);
    size_t next = 0;
    if (t.data_size) t.data = static_cast<uint8_t*>(map_shared(fds.at(next++), t.data_size));
    if (t.palette_size) t.palette = static_cast<uint8_t*>(map_shared(fds.at(next++), t.palette_size));
    std::vector<uint8_t> bytes;
    af_sink sink{&bytes, [](void* ctx, const void* d, uint64_t n) {
                     auto* b = static_cast<std::vector<uint8_t>*>(ctx);
                     b->insert(b->end(), static_cast<const uint8_t*>(d), static_cast<const uint8_t*>(d) + n);
                     return AF_OK;
                 }};
    const af_options opts = options.options();
    af_error e{};
    af_status st = c.write(services(), &t, &opts, &sink, &e);
    if (t.data) ::munmap(t.data, t.data_size);
    if (t.palette) ::munmap(t.palette, t.palette_size);
    Writer w;
    reply_error(w, st, e);
    std::vector<int> give;
    void* out = nullptr;
    if (st == AF_OK && bytes.size() <= kInlineBytes && w.bytes().size() + 8 + bytes.size() + 4 <= kMaxMessage) {
        w.u64(bytes.size()).raw(bytes.data(), bytes.size()); // small enough to go inside the reply
    } else if (st == AF_OK) {
        w.u64(bytes.size());
        out = shared_alloc(bytes.size());
        if (!out) {
            Writer no;
            af_error oom{};
            std::snprintf(oom.message, sizeof oom.message, "%s", "out of memory handing the written bytes over");
            reply_error(no, AF_ERR_NO_MEMORY, oom);
            send_message(kSock, Op::Reply, no.bytes());
            return;
        }
        if (!bytes.empty()) std::memcpy(out, bytes.data(), bytes.size());
        give.push_back(hand_over(out, bytes.size()));
    }
    send_handing_over(Op::Reply, w.bytes(), give);
}

void serve_describe(const LoadedPlugin& p) {
    Writer d;
    put_description(d, p);
    Writer w;
    // The reply is one datagram; a plugin whose tables do not fit says so instead of vanishing mid-send.
    if (d.bytes().size() + 64 > kMaxMessage) {
        af_error e{};
        std::snprintf(e.message, sizeof e.message, "the plugin's tables take %zu bytes, more than the %zu allowed",
                      d.bytes().size(), kMaxMessage - 64);
        reply_error(w, AF_ERR_UNSUPPORTED, e);
    } else {
        reply_error(w, AF_OK, af_error{});
        w.raw(d.bytes().data(), d.bytes().size());
    }
    send_message(kSock, Op::Reply, w.bytes());
}

// A surface on the wire: its description, its bytes in the call's next descriptor.
af_surface get_surface(Reader& r) {
    af_surface s{};
    s.format = r.u32();
    s.width = r.u32();
    s.height = r.u32();
    s.depth = r.u32();
    s.size = r.u64();
    return s;
}

// decode or encode: the source in the first memory file, the destination (which the host made, at the size it
// allocated) in the second, written in place.
void serve_codec(const LoadedPlugin& p, Op op, Reader& r, const std::vector<int>& fds) {
    const af_codec& c = p.codecs.at(r.u32());
    KvStore options;
    options.fill(r);
    af_surface src = get_surface(r), dst = get_surface(r);
    if (fds.size() != 2) throw std::runtime_error("a codec call without its two surfaces");
    src.data = static_cast<uint8_t*>(map_shared(fds[0], src.size));
    dst.data = static_cast<uint8_t*>(map_shared_writable(fds[1], dst.size));
    af_error e{};
    af_status st = AF_ERR_INTERNAL;
    auto fn = op == Op::Decode ? c.decode : c.encode;
    if (!src.data || !dst.data)
        std::snprintf(e.message, sizeof e.message, "%s", "cannot map the surfaces the host shared");
    else if (!fn)
        st = AF_ERR_UNSUPPORTED;
    else {
        const af_options opts = options.options();
        st = fn(services(), &src, &dst, &opts, &e);
    }
    if (src.data) ::munmap(src.data, src.size ? src.size : 1);
    if (dst.data) ::munmap(dst.data, dst.size ? dst.size : 1);
    Writer w;
    reply_error(w, st, e);
    send_message(kSock, Op::Reply, w.bytes());
}

void serve(const LoadedPlugin& p) {
    for (;;) {
        Message m;
        if (!recv_message(kSock, m)) return; // the host is done (or gone)
        Reader r(m.body);
        switch (m.op) {
        case Op::Probe:
            serve_probe(p, r);
            break;
        case Op::Read:
            serve_read(p, r, m.fds);
            break;
        case Op::Info:
            serve_info(p, r, m.fds);
            break;
        case Op::Dims:
            serve_dims(p, r, m.fds);
            break;
        case Op::Write:
            serve_write(p, r, m.fds);
            break;
        case Op::Stage:
            serve_stage(p, r, m.fds, kSock, {shared_alloc, worker_free, existing_block_fd});
            break;
        case Op::Describe:
            serve_describe(p);
            break;
        case Op::Decode:
        case Op::Encode:
            serve_codec(p, m.op, r, m.fds);
            break;
        default:
            return;
        }
        close_fds(m.fds);
    }
}

void say_loaded(af_status st, const std::string& why, const std::string& confinement = "") {
    Writer w;
    w.i32(st).str(why).str(confinement);
    send_message(kSock, Op::Reply, w.bytes());
}

uint64_t arg_number(char** argv, int i) { return std::strtoull(argv[i], nullptr, 10); }

// Seals the worker, then loads the plugin inside: no line of it, its ELF constructors and entry function included,
// runs before the sandbox. `held` gets what held; nullptr on failure, with `why` set.
const LoadedPlugin* load_sealed(PluginRegistry& reg, const std::string& path, bool allow_unconfined, Confinement& held,
                                std::string& why) {
    // A bundled plugin served under --isolate all was loaded with the others, before any confinement.
    const bool already = std::any_of(reg.plugins().begin(), reg.plugins().end(),
                                     [&](const auto& p) { return p->bundled && p->path == path; });
    enter_namespaces(held);
    // Opened while opening is possible (and after the PID namespace, which makes this process another one):
    // limit_heap measures the worker after loading, through it.
    const int status_fd = ::open("/proc/self/status", O_RDONLY | O_CLOEXEC);
    if (status_fd < 0) {
        why = "cannot open /proc/self/status";
        return nullptr;
    }
    if (!confine_for_load(kLibrary, allow_unconfined, held, why)) {
        why = "cannot seal the worker before loading the plugin: " + why + "; not loaded" +
              (held.landlock_absent ? " (assetforge --allow-unconfined-load … loads it without Landlock)" : "");
        return nullptr;
    }
    // The loader opens the library by this name: the descriptor the host handed over, not the path, which may by
    // now name other bytes than the host hashed. It needs /proc, which the namespaces keep but a container may lack.
    const std::string library = "/proc/self/fd/" + std::to_string(kLibrary);
    if (const int fd = ::open(library.c_str(), O_RDONLY | O_CLOEXEC); fd >= 0)
        ::close(fd);
    else {
        why = "cannot reach the library through " + library + " (" + std::strerror(errno) +
              "): a plugin worker loads it from the descriptor the host passed, through /proc";
        return nullptr;
    }
    if (!enter_sandbox(true, why)) return nullptr;
    const LoadedPlugin* plugin = nullptr;
    if (already || reg.load_in_process(path, library))
        for (const auto& p : reg.plugins())
            if (p->path == path) plugin = p.get();
    if (!plugin) {
        why = reg.failures().empty() ? "not loaded" : reg.failures().back().reason;
        return nullptr;
    }
    if (!limit_heap(g_limit, status_fd, why) || !seal_after_load(why)) {
        why = "cannot sandbox the worker: " + why;
        return nullptr;
    }
    ::close(status_fd);
    ::close(kLibrary); // mapped by now; the plugin has no use for its own file
    return plugin;
}

} // namespace

int run_plugin_worker(int argc, char** argv) {
    // A worker never outlives its host, even one killed with SIGKILL.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    // Only stdin, stdout, stderr, the socket, the library and the host's copies of its bundled plugins (one
    // argument each after the eighth): a descriptor the host had open (the state database, an output being
    // written) must not be the plugin's to write.
    const unsigned copies = argc > 9 ? unsigned(argc - 9) : 0;
    ::close_range(kLibrary + 1 + copies, ~0u, 0);
    // stdout is a pipe the host reads: a line at a time, so what a plugin prints arrives with its call.
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    if (argc < 9) return 2;
    const std::string path = argv[2];
    g_limit = arg_number(argv, 3);
    HostSettings& hs = host::settings();
    hs.max_texture_bytes = arg_number(argv, 4);
    hs.max_dimension = uint32_t(arg_number(argv, 5));
    hs.max_surfaces = uint32_t(arg_number(argv, 6));
    hs.max_items = uint32_t(arg_number(argv, 7));
    const bool allow_unconfined = std::strcmp(argv[8], "unconfined-allowed") == 0;
    af_host& table = service_table();
    table.alloc = worker_alloc;
    table.free = worker_free;
    table.log = worker_log;
    table.cancelled = worker_cancelled;
    table.parallel_for = worker_parallel_for;

    PluginRegistry reg;
    set_registry(&reg);
    // The bundled plugins come from the host's copies, not from their files: a file may hold other bytes by now
    // than the host loaded and hashed, and the identities recorded for what this worker makes are the host's. The
    // plugin served (under --isolate all) is fd 4, the others "FD=PATH"; load_default skips what is loaded.
    if (!third_party(std::filesystem::path(path)))
        reg.load_in_process(path, "/proc/self/fd/" + std::to_string(kLibrary));
    for (int i = 9; i < argc; ++i)
        if (const char* eq = std::strchr(argv[i], '='))
            reg.load_in_process(eq + 1, "/proc/self/fd/" + std::string(argv[i], size_t(eq - argv[i])));
    // The host's own plugins first (the environment is empty: no $ASSETFORGE_PLUGIN_PATH), trusted code loaded
    // before any confinement: their codecs serve af_host.convert here as they do in process, so a stage or a
    // writer that encodes BC through the host (xtf.write) works in a worker. The plugin this worker serves was
    // accepted by the host, so here it takes the place of a bundled plugin of its name (--plugin-override).
    reg.load_default();
    reg.serve_in_worker();
    ::close_range(kLibrary + 1, ~0u, 0); // the copies are mapped by now
    Confinement held;
    std::string why;
    const LoadedPlugin* plugin = load_sealed(reg, path, allow_unconfined, held, why);
    if (!plugin) {
        say_loaded(AF_ERR_USAGE, why);
        return 1;
    }
    g_sandboxed = true;
    say_loaded(AF_OK, "", held.text());
    int code = 0;
    try {
        serve(*plugin);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "assetforge: plugin worker for %s: %s\n", plugin->name.c_str(), e.what());
        code = 1;
    }
    // No exit handlers: in the sandbox they could not open what they look for (a leak checker's /proc reads).
    std::fflush(nullptr);
    ::_exit(code);
}

} // namespace af::host::isolation

// LeakSanitizer asks this weak hook at exit; without a sanitizer nothing calls it.
extern "C" int __lsan_is_turned_off() { return af::host::isolation::g_sandboxed ? 1 : 0; }
