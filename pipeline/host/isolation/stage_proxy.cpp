#include "host/isolation/stage_proxy.hpp"

#include "host/host_services.hpp"
#include "host/isolation/crash_handler.hpp"
#include "host/isolation/isolation.hpp"
#include "host/isolation/replies.hpp"
#include "host/isolation/stage_replies.hpp"
#include "host/isolation/stage_wire.hpp"
#include "host/isolation/worker_pool.hpp"
#include "host/plugin_registry.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <stdexcept>
#include <string>
#include <utility>

namespace af::host::isolation {
namespace {

struct StageRoute {
    const LoadedPlugin* plugin = nullptr;
    af_stage real{}; // called only in process
    uint32_t index = 0;
    bool third_party = false; // decided once: the check resolves paths
    bool reads_files = false;
};

bool runs_in_worker(const StageRoute& r) {
    switch (settings().mode) {
    case Mode::None:
        return false;
    case Mode::ThirdParty:
        return r.third_party;
    case Mode::All:
        return r.third_party || !r.reads_files;
    }
    return false;
}

constexpr size_t kStageRoutes = 256;
std::array<StageRoute, kStageRoutes> g_stage_routes;
std::atomic<size_t> g_stage_routes_used{0};

// "stage pages.extract of world.pages", "… of a.png and 11 more": what a failure message names.
std::string stage_call_text(const af_stage& s, const af_stage_io* io) {
    std::string text = std::string("stage ") + (s.name ? s.name : "?");
    const af_item* first = io->input_count && io->inputs ? io->inputs[0] : nullptr;
    if (first && first->name) text += std::string(" of ") + first->name;
    if (io->input_count > 1) text += " and " + std::to_string(io->input_count - 1) + " more";
    return text;
}

af_status run_in_process(const StageRoute& r, const af_host* h, const af_stage_io* io, const af_options* params,
                         af_error* e) {
    if (!r.real.run) {
        set_error(e, AF_ERR_INTERNAL, "plugin '" + r.plugin->name + "' has no stage " + r.real.name + " in process");
        return AF_ERR_INTERNAL;
    }
    const char* input = io && io->input_count && io->inputs && io->inputs[0] ? io->inputs[0]->name : nullptr;
    CallScope scope(r.plugin->name.c_str(), r.real.name, input,
                    in_process_remedy(r.third_party, r.third_party || !r.reads_files));
    return r.real.run(h, io, params, e);
}

af_status run_in_worker(const StageRoute& r, const af_stage_io* io, const af_options* params, af_error* e) {
    Writer body;
    int fd;
    try {
        fd = put_stage_call(body, r.index, io, params);
    } catch (const std::exception& x) {
        set_error(e, AF_ERR_USAGE, x.what());
        return AF_ERR_USAGE;
    }
    if (fd == -1) {
        set_error(e, AF_ERR_NO_MEMORY, "cannot share the stage's inputs with the plugin worker");
        return AF_ERR_NO_MEMORY;
    }
    const std::string what = stage_call_text(r.real, io);
    const char* input = io->input_count && io->inputs[0] ? io->inputs[0]->name : nullptr;
    EmitAllowance left = emit_allowance();
    af_status emitted = AF_OK;
    af_error emit_error{};
    auto on_message = [&](Message& m) {
        if (m.op == Op::Emit) {
            // After one item failed the call, the rest are dropped (their descriptors closed by the caller).
            if (emitted == AF_OK) emitted = emitted_item(m, r.plugin->name, io, left, &emit_error);
        } else if (m.op == Op::Log) {
            // Named as an in-process stage's line is: the plugin and its input.
            Reader rd(m.body);
            const int32_t level = rd.i32();
            const std::string text = rd.str();
            CallScope scope(r.plugin->name.c_str(), r.real.name, input);
            services()->log(level, text.c_str());
        }
    };
    CallOutcome o = call_worker(*r.plugin, Op::Stage, body.bytes(), fd >= 0 ? std::vector<int>{fd} : std::vector<int>{},
                                what, on_message);
    if (fd >= 0) ::close(fd);
    if (!o.ok) {
        set_error(e, o.status, o.failure);
        return af_status(o.status);
    }
    close_fds(o.reply.fds);
    try {
        Reader rd(o.reply.body);
        const af_status st = read_status(rd, e);
        if (st != AF_OK) return st;
    } catch (const std::exception& x) {
        set_error(e, AF_ERR_INTERNAL, "plugin '" + r.plugin->name + "' worker answered badly: " + x.what());
        return AF_ERR_INTERNAL;
    }
    if (emitted != AF_OK && e) *e = emit_error;
    return emitted;
}

af_status run_stage_route(const StageRoute& r, const af_host* h, const af_stage_io* io, const af_options* params,
                          af_error* e) {
    return runs_in_worker(r) ? run_in_worker(r, io, params, e) : run_in_process(r, h, io, params, e);
}

template <size_t N> af_status stage_run_at(const af_host* h, const af_stage_io* io, const af_options* o, af_error* e) {
    return run_stage_route(g_stage_routes[N], h, io, o, e);
}

template <size_t... I>
constexpr std::array<decltype(af_stage::run), sizeof...(I)> make_stage_entries(std::index_sequence<I...>) {
    return {&stage_run_at<I>...};
}
constexpr auto kStageEntries = make_stage_entries(std::make_index_sequence<kStageRoutes>{});

// A third-party stage past the routes there are: it must not run unsandboxed.
af_status unrouted_stage(const af_host*, const af_stage_io*, const af_options*, af_error* e) {
    set_error(e, AF_ERR_INTERNAL,
              "too many plugin stages are loaded to run this third-party one in a worker (at most " +
                  std::to_string(kStageRoutes) + ")");
    return AF_ERR_INTERNAL;
}

} // namespace

void route_stage(const LoadedPlugin& plugin, uint32_t index, af_stage& s) {
    const bool outside = third_party(plugin);
    const size_t n = g_stage_routes_used.fetch_add(1);
    if (n >= kStageRoutes) {
        if (outside) s.run = unrouted_stage;
        return;
    }
    g_stage_routes[n] = {&plugin, s, index, outside, stage_reads_files(s)};
    // Set even where the host's table has no pointer of its own (a stage it learnt from a worker's description).
    s.run = kStageEntries[n];
}

} // namespace af::host::isolation
