#include "steps/plugin_params.hpp"

#include "assetforge/plugin.hpp"
#include "texture/format_names.hpp"

#include <algorithm>

namespace af::steps {
namespace {

ParamType type_of(uint32_t t) {
    switch (t) {
    case AF_PARAM_INTEGER:
        return ParamType::Integer;
    case AF_PARAM_NUMBER:
        return ParamType::Number;
    case AF_PARAM_BOOL:
        return ParamType::Bool;
    case AF_PARAM_ENUM:
        return ParamType::Enum;
    case AF_PARAM_FILE:
        return ParamType::File;
    case AF_PARAM_DIR:
        return ParamType::Dir;
    case AF_PARAM_LIST:
        return ParamType::List;
    default:
        return ParamType::Text; // AF_PARAM_TEXT, or a type from a newer minor
    }
}

// A `format` choice list of format names (XTF/VTF's DXT1, BGRA8888, …, and
// auto): its values may be typed as any name the host's format parser takes.
bool lists_formats(const ParamSpec& s) {
    if (s.name != "format" || s.type != ParamType::Enum) return false;
    int names = 0;
    for (const auto& c : s.choices) {
        if (texture::parse_format_name(c, false))
            ++names;
        else if (c != "auto")
            return false;
    }
    return names > 0;
}

void add_options(PassThrough& out, const af_param* const* list, uint32_t count, std::string_view owner) {
    auto specs = param_specs(list, count, owner);
    if (!specs) {
        out.any = true;
        return;
    }
    out.options.insert(out.options.end(), specs->begin(), specs->end());
    out.owners.insert(out.owners.end(), specs->size(), std::string(owner));
}

} // namespace

std::optional<std::vector<ParamSpec>> param_specs(const af_param* const* list, uint32_t count, std::string_view owner) {
    if (!list) return std::nullopt;
    std::vector<ParamSpec> out;
    for (uint32_t i = 0; i < count; ++i) {
        if (!list[i]) continue; // the loader refuses such tables; be safe anyway
        af_param p = sdk::read_table<af_param>(list[i]);
        if (!p.name) continue;
        ParamSpec s;
        s.name = p.name;
        s.type = type_of(p.type);
        if (s.type == ParamType::Enum && !p.choices) s.type = ParamType::Text;
        if (p.choices && (s.type == ParamType::Enum || s.type == ParamType::List))
            for (const char* const* c = p.choices; *c; ++c) s.choices.emplace_back(*c);
        s.default_value = p.default_value ? p.default_value : "";
        if (p.flags & AF_PARAM_HAS_MIN) s.min = p.min;
        if (p.flags & AF_PARAM_HAS_MAX) s.max = p.max;
        s.min_exclusive = (p.flags & AF_PARAM_MIN_EXCLUSIVE) != 0;
        s.ignore_case = (p.flags & AF_PARAM_IGNORE_CASE) != 0;
        s.required = (p.flags & AF_PARAM_REQUIRED) != 0;
        s.doc = p.doc ? p.doc : "";
        if (lists_formats(s))
            s.translate = [choices = s.choices,
                           who = std::string(owner)](const std::string& v) -> std::optional<std::string> {
                if (!texture::parse_format_name(v, false)) return std::nullopt; // not a name: the usual hints
                return texture::format_among(v, choices, who);
            };
        out.push_back(std::move(s));
    }
    return out;
}

std::optional<std::vector<std::string>> meta_key_list(const char* const* list) {
    if (!list) return std::nullopt;
    std::vector<std::string> out;
    for (const char* const* k = list; *k; ++k) out.emplace_back(*k);
    return out;
}

PassThrough container_read_options(const host::PluginRegistry& reg) {
    PassThrough out;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->containers)
            if (c.caps & AF_CAN_READ) add_options(out, c.read_options, c.read_option_count, c.name);
    return out;
}

PassThrough container_write_options(const host::PluginRegistry& reg, const std::string& container) {
    PassThrough out;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->containers)
            if ((c.caps & AF_CAN_WRITE) && (container.empty() || container == c.name))
                add_options(out, c.write_options, c.write_option_count, c.name);
    return out;
}

PassThrough codec_encode_options(const host::PluginRegistry& reg, const af_codec* codec) {
    PassThrough out;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->codecs)
            if ((!codec || codec == &c) && c.encode) add_options(out, c.encode_options, c.encode_option_count, c.name);
    return out;
}

std::optional<std::vector<std::string>> container_meta_keys(const host::PluginRegistry& reg) {
    std::vector<std::string> out;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->containers) {
            if (!(c.caps & AF_CAN_READ)) continue;
            auto keys = meta_key_list(c.meta_keys);
            if (!keys) return std::nullopt;
            for (auto& k : *keys)
                if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(std::move(k));
        }
    return out;
}

} // namespace af::steps
