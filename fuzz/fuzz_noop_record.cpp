// No-op records are read from the user's cache folder, where anything may have been left: arbitrary bytes
// must parse to nothing or to a record of absolute paths that encodes and parses back to itself.
#include "engine/build/noop_record.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    using af::engine::encode_noop_record;
    using af::engine::parse_noop_record;
    const auto rec = parse_noop_record(std::string_view(reinterpret_cast<const char*>(data), size));
    if (!rec) return 0;
    if (rec->state_dir.empty() || rec->state_dir.native()[0] != '/') std::abort();
    for (const auto& [name, value] : rec->env)
        if (name.empty()) std::abort();
    for (const auto& e : rec->entries)
        if (e.path.empty() || e.path[0] != '/' || e.kind > 2) std::abort();
    const auto again = parse_noop_record(encode_noop_record(*rec));
    if (!again || again->entries != rec->entries || again->state_dir != rec->state_dir ||
        again->actions != rec->actions || again->quiet != rec->quiet || again->env != rec->env)
        std::abort();
    return 0;
}
