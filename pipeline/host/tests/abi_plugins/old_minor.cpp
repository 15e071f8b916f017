// Simulates a plugin compiled against an older 1.x SDK whose tables were
// shorter: the plugin table ends before `commands`, the container table ends
// before `info` and the stage table before the parameter declarations of API
// 1.2. The host must load it and treat the missing fields as 0: its stage then
// takes any parameter and may set any metadata.
#include "assetforge/plugin_abi.h"

#include <cstddef>
#include <cstring>

namespace {

struct old_container { // af_container as of an older minor: no `info`
    AF_TABLE_HEADER;
    const char* name;
    const char* extensions;
    const char* description;
    uint32_t version;
    uint32_t caps;
    int32_t (*probe)(const uint8_t*, uint64_t, const char*);
    af_status (*read)(const af_host*, const af_input*, const af_options*, af_texture*, af_error*);
    af_status (*write)(const af_host*, const af_texture*, const af_options*, af_sink*, af_error*);
};

struct old_plugin { // af_plugin without the command arrays
    AF_TABLE_HEADER;
    const char* name;
    const char* version;
    const char* description;
    const af_container* const* containers;
    uint32_t container_count;
    const af_codec* const* codecs;
    uint32_t codec_count;
    const af_stage* const* stages;
    uint32_t stage_count;
};

struct old_stage { // af_stage as of API 1.1: parameter names only (here none: any parameter)
    AF_TABLE_HEADER;
    const char* name;
    const char* description;
    uint32_t version;
    uint32_t kind;
    uint32_t takes;
    uint32_t reserved;
    const char* const* params;
    af_status (*run)(const af_host*, const af_stage_io*, const af_options*, af_error*);
};

int32_t probe(const uint8_t* h, uint64_t n, const char*) {
    return n >= 4 && std::memcmp(h, "OLD!", 4) == 0 ? AF_PROBE_MAGIC : 0;
}

af_status read(const af_host*, const af_input*, const af_options*, af_texture*, af_error* e) {
    e->code = AF_ERR_UNSUPPORTED;
    e->offset = AF_NO_OFFSET;
    std::strcpy(e->message, "unsupported: old test format holds no pixels");
    return AF_ERR_UNSUPPORTED;
}

// Emits every input unchanged.
af_status passthrough(const af_host*, const af_stage_io* io, const af_options*, af_error*) {
    for (uint32_t i = 0; i < io->input_count; ++i)
        if (af_status s = io->emit(io->ctx, io->inputs[i]); s != AF_OK) return s;
    return AF_OK;
}

const old_stage stage = {sizeof(old_stage),
                         AF_API_MAJOR,
                         1,
                         "old.passthrough",
                         "passes items through",
                         1,
                         AF_STAGE_MAP,
                         AF_STAGE_TAKES_BYTES,
                         0,
                         nullptr,
                         passthrough};
const af_stage* stages[] = {reinterpret_cast<const af_stage*>(&stage)};

const old_container container = {sizeof(old_container), AF_API_MAJOR, 0,    "oldfmt", ".old", "older minor", 1,
                                 AF_CAN_READ,           probe,        read, nullptr};
const af_container* containers[] = {reinterpret_cast<const af_container*>(&container)};
const old_plugin plugin = {
    sizeof(old_plugin), AF_API_MAJOR, 0, "abi_old", "0.1", "older minor", containers, 1, nullptr, 0, stages, 1};

} // namespace

extern "C" AF_EXPORT const af_plugin* assetforge_plugin_entry(const af_host*) {
    static_assert(sizeof(old_plugin) < sizeof(af_plugin));
    static_assert(sizeof(old_container) < sizeof(af_container));
    static_assert(sizeof(old_stage) < sizeof(af_stage));
    return reinterpret_cast<const af_plugin*>(&plugin);
}
