// A plugin whose stage declares an enum parameter without choices: the
// loader refuses it, naming the stage and the parameter, rather than let the
// engine check values against an empty list.
#include "assetforge/plugin.hpp"

namespace {

af_status run(const af_host*, const af_stage_io*, const af_options*, af_error*) { return AF_OK; }

const af_plugin* table(const af_host*) {
    static af_param param = [] {
        af_param p{};
        af::sdk::init_header(p);
        p.name = "mode";
        p.type = AF_PARAM_ENUM;
        return p;
    }();
    static const af_param* const params[] = {&param};
    static af_stage stage = [] {
        af_stage s{};
        af::sdk::init_header(s);
        s.name = "bad.stage";
        s.kind = AF_STAGE_MAP;
        s.takes = AF_STAGE_TAKES_BYTES;
        s.run = run;
        s.param_decls = params;
        s.param_decl_count = 1;
        return s;
    }();
    static const af_stage* const stages[] = {&stage};
    static const af_plugin p =
        af::sdk::make_plugin("abi_bad_params", "1.0", "malformed declarations", {.stages = stages});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
