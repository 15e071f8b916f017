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
std::array<CodecSlot, kSlots> g_codecs;
std::atomic<size_t> g_codecs_used{0};

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

struct Entry {
    decltype(af_codec::decode) decode;
    decltype(af_codec::encode) encode;
};
template <size_t... I> constexpr std::array<Entry, sizeof...(I)> make_entries(std::index_sequence<I...>) {
    return {Entry{&decode_at<I>, &encode_at<I>}...};
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

} // namespace af::host::isolation
