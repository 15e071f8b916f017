#include "host/isolation/call_scopes.hpp"

#include "host/isolation/crash_handler.hpp"
#include "host/plugin_registry.hpp"

#include <array>
#include <atomic>
#include <utility>

namespace af::host::isolation {
namespace {

constexpr size_t kSlots = 128;

struct CodecSlot {
    const LoadedPlugin* plugin = nullptr;
    af_codec real{};
};
struct StageSlot {
    const LoadedPlugin* plugin = nullptr;
    af_stage real{};
};
std::array<CodecSlot, kSlots> g_codecs;
std::array<StageSlot, kSlots> g_stages;
std::atomic<size_t> g_codecs_used{0}, g_stages_used{0};

template <size_t N>
af_status decode_at(const af_host* h, const af_surface* src, af_surface* dst, const af_options* o, af_error* e) {
    CallScope scope(g_codecs[N].plugin->name.c_str(), "decode", nullptr);
    return g_codecs[N].real.decode(h, src, dst, o, e);
}
template <size_t N>
af_status encode_at(const af_host* h, const af_surface* src, af_surface* dst, const af_options* o, af_error* e) {
    CallScope scope(g_codecs[N].plugin->name.c_str(), "encode", nullptr);
    return g_codecs[N].real.encode(h, src, dst, o, e);
}
template <size_t N> af_status run_at(const af_host* h, const af_stage_io* io, const af_options* o, af_error* e) {
    const StageSlot& s = g_stages[N];
    const char* input = io && io->input_count && io->inputs && io->inputs[0] ? io->inputs[0]->name : nullptr;
    CallScope scope(s.plugin->name.c_str(), s.real.name, input);
    return s.real.run(h, io, o, e);
}

struct Entry {
    decltype(af_codec::decode) decode;
    decltype(af_codec::encode) encode;
    decltype(af_stage::run) run;
};
template <size_t... I> constexpr std::array<Entry, sizeof...(I)> make_entries(std::index_sequence<I...>) {
    return {Entry{&decode_at<I>, &encode_at<I>, &run_at<I>}...};
}
constexpr auto kEntries = make_entries(std::make_index_sequence<kSlots>{});

} // namespace

void scope_codec(const LoadedPlugin& plugin, af_codec& c) {
    const size_t n = g_codecs_used.fetch_add(1);
    if (n >= kSlots) return;
    g_codecs[n] = {&plugin, c};
    if (c.decode) c.decode = kEntries[n].decode;
    if (c.encode) c.encode = kEntries[n].encode;
}

void scope_stage(const LoadedPlugin& plugin, af_stage& s) {
    const size_t n = g_stages_used.fetch_add(1);
    if (n >= kSlots) return;
    g_stages[n] = {&plugin, s};
    if (s.run) s.run = kEntries[n].run;
}

} // namespace af::host::isolation
