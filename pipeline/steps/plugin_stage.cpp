// Plugin stages (af_stage) as engine steps: items cross the C boundary as
// borrowed af_item views; whatever the plugin emits is copied back.
#include "steps/texture_steps.hpp"

#include "assetforge/plugin.hpp"
#include "host/host_services.hpp"
#include "steps/plugin_params.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <stdexcept>

namespace af::steps {
namespace {

// Keeps the C views of one item alive for the duration of a stage call; a texture crosses as the SDK's
// TextureView, the one conversion of a Texture to the ABI.
struct ItemView {
    std::optional<sdk::TextureView> tex;
    af_item item{};
    std::vector<af_kv> meta;
};

void fill_view(const Item& it, ItemView& v) {
    for (const auto& [k, val] : it.meta) v.meta.push_back({k.c_str(), val.c_str()});
    sdk::init_header(v.item);
    v.item.name = it.name.c_str();
    v.item.meta = v.meta.data();
    v.item.meta_count = uint32_t(v.meta.size());
    if (it.texture) {
        v.item.texture = v.tex.emplace(*it.texture).get();
    } else if (it.bytes) {
        v.item.bytes = it.bytes->data();
        v.item.size = it.bytes->size();
    }
}

struct EmitSink {
    std::vector<Item> out;
    std::string error;
};

af_status emit(void* ctx, const af_item* raw) {
    auto* sink = static_cast<EmitSink*>(ctx);
    af_error e{};
    return sdk::guard(&e, [&] {
        af_item in = sdk::read_table<af_item>(raw);
        Item it;
        it.name = in.name ? in.name : "";
        for (uint32_t i = 0; i < in.meta_count; ++i)
            if (in.meta[i].key) it.meta[in.meta[i].key] = in.meta[i].value ? in.meta[i].value : "";
        if (in.texture) {
            af_texture t = sdk::read_table<af_texture>(in.texture);
            it.texture = std::make_shared<Texture>(sdk::import_texture(t));
        } else {
            it.bytes = std::make_shared<const std::vector<uint8_t>>(in.bytes, in.bytes + in.size);
        }
        sink->out.push_back(std::move(it));
    });
}

} // namespace

StepDef plugin_stage_step(const af_stage& st, const host::LoadedPlugin& plugin) {
    StepDef d;
    d.name = st.name;
    d.description = st.description ? st.description : "";
    d.version = st.version;
    d.kind = st.kind == AF_STAGE_GATHER ? StepKind::Gather : StepKind::Map;
    // Typed declarations (API 1.2), else the names alone (any value), else
    // nothing declared: any parameter, as plugins built before 1.2 expect.
    if (auto typed = param_specs(st.param_decls, st.param_decl_count, st.name)) {
        d.params = std::move(*typed);
    } else if (st.params) {
        for (const char* const* p = st.params; *p; ++p) d.params.push_back(text_param(*p, "", ""));
    } else {
        d.pass_through = [](const Params&, const std::string&) { return PassThrough{{}, true}; };
    }
    d.meta_keys = meta_key_list(st.meta_keys);
    d.provider = plugin_identity(plugin);
    d.plugin = plugin.name;
    d.plugin_file = plugin.path;
    d.takes_texture = (st.takes & AF_STAGE_TAKES_TEXTURE) && !(st.takes & AF_STAGE_TAKES_BYTES);
    const af_stage* stage = &st;
    d.run = [stage, provider = d.provider](StepContext& ctx, std::vector<Item> items) {
        // Recorded with the action, so a rebuilt plugin is said as the reason it runs again (its identity is in the
        // job's signature too, which alone would say "parameters changed").
        if (std::find(ctx.tools.begin(), ctx.tools.end(), provider) == ctx.tools.end()) ctx.tools.push_back(provider);
        std::deque<ItemView> views(items.size());
        std::vector<const af_item*> ptrs;
        for (size_t i = 0; i < items.size(); ++i) {
            fill_view(items[i], views[i]);
            ptrs.push_back(&views[i].item);
        }
        sdk::OptionList opts;
        for (const auto& [k, v] : ctx.params) opts.set(k, v);
        af_options ov = opts.view();
        EmitSink sink;
        std::string base = ctx.base_dir.string();
        af_stage_io io{};
        sdk::init_header(io);
        io.inputs = ptrs.data();
        io.input_count = uint32_t(ptrs.size());
        io.base_dir = base.c_str();
        io.ctx = &sink;
        io.emit = emit;
        af_error err{};
        af_status s = stage->run(host::services(), &io, &ov, &err);
        if (s != AF_OK) {
            std::string msg = err.message[0] ? err.message : "stage failed";
            if (err.offset != AF_NO_OFFSET) msg = "at byte " + std::to_string(err.offset) + ": " + msg;
            throw std::runtime_error(msg);
        }
        return std::move(sink.out);
    };
    return d;
}

void add_plugin_stages(StepTable& table, const host::PluginRegistry& reg) {
    for (const auto& p : reg.plugins())
        for (const auto& st : p->stages)
            if (st.name && st.run) table.add(plugin_stage_step(st, *p));
}

} // namespace af::steps
