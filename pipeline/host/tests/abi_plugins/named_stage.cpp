// A plugin with one stage, both named at compile time (PLUGIN_NAME,
// STAGE_NAME), that passes its items on: the engine's tests build several
// from it to give stages names that clash with a built-in step or with
// another plugin's stage.
#include "assetforge/plugin.hpp"

namespace {

af_status passthrough(const af_host*, const af_stage_io* io, const af_options*, af_error*) {
    for (uint32_t i = 0; i < io->input_count; ++i)
        if (af_status s = io->emit(io->ctx, io->inputs[i]); s != AF_OK) return s;
    return AF_OK;
}

const af_plugin* table(const af_host*) {
    static const af::sdk::ParamTable params;
    static const af_stage stage = [] {
        af_stage s{};
        af::sdk::init_header(s);
        s.name = STAGE_NAME;
        s.description = "passes items through";
        s.version = 1;
        s.kind = AF_STAGE_MAP;
        s.takes = AF_STAGE_TAKES_BYTES;
        s.run = passthrough;
        af::sdk::declare_params(s, params);
        s.meta_keys = af::sdk::kNoMetaKeys;
        return s;
    }();
    static const af_stage* const stages[] = {&stage};
    static const af_plugin p = af::sdk::make_plugin(PLUGIN_NAME, "1.0", "stage-name test plugin", {.stages = stages});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
