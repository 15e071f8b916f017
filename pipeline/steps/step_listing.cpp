#include "steps/step_listing.hpp"

#include <algorithm>
#include <cmath>

namespace af::engine {
namespace {

const char* type_name(ParamType t) {
    switch (t) {
    case ParamType::Text:
        return "text";
    case ParamType::Integer:
        return "integer";
    case ParamType::Number:
        return "number";
    case ParamType::Bool:
        return "bool";
    case ParamType::Enum:
        return "enum";
    case ParamType::File:
        return "file";
    case ParamType::Dir:
        return "directory";
    case ParamType::List:
        return "list";
    }
    return "text";
}

// Whole bounds print as integers ("0", not "0.0").
nlohmann::json bound(double v) {
    if (std::trunc(v) == v && std::fabs(v) < 9e15) return int64_t(v);
    return v;
}

nlohmann::json param_json(const ParamSpec& p) {
    nlohmann::json j = {{"name", p.name}, {"type", type_name(p.type)}, {"doc", p.doc}};
    if (!p.default_value.empty()) j["default"] = p.default_value;
    if (!p.choices.empty()) j["choices"] = p.choices;
    if (!p.also_valid_doc.empty()) j["also"] = p.also_valid_doc;
    if (p.min) j["min"] = bound(*p.min);
    if (p.max) j["max"] = bound(*p.max);
    if (p.min_exclusive) j["min_exclusive"] = true;
    if (p.ignore_case) j["ignore_case"] = true;
    if (p.required) j["required"] = true;
    return j;
}

// What a step hands on (read, encode, write, and undeclared plugin stages),
// asked as a use with every parameter at its default and no output extension
// would be: every container's or codec's options.
nlohmann::json other_params_json(const StepDef& d) {
    if (!d.pass_through) return nullptr;
    Params defaults;
    for (const auto& p : d.params)
        if (!p.default_value.empty()) defaults[p.name] = p.default_value;
    const PassThrough pass = d.pass_through(defaults, "");
    if (pass.any) return "any";
    std::vector<std::string> names;
    for (const auto& o : pass.options)
        if (std::find(names.begin(), names.end(), o.name) == names.end()) names.push_back(o.name);
    std::sort(names.begin(), names.end());
    return names;
}

// The same options by the container or codec that declares them, each with
// its type, default and doc: two containers' `srgb` may differ in both.
nlohmann::json options_by_owner_json(const StepDef& d) {
    if (!d.pass_through) return nlohmann::json::array();
    Params defaults;
    for (const auto& p : d.params)
        if (!p.default_value.empty()) defaults[p.name] = p.default_value;
    const PassThrough pass = d.pass_through(defaults, "");
    nlohmann::json out = nlohmann::json::array();
    if (pass.owners.size() != pass.options.size()) return out;
    for (size_t i = 0; i < pass.options.size(); ++i) {
        if (out.empty() || out.back()["owner"] != pass.owners[i])
            out.push_back({{"owner", pass.owners[i]}, {"options", nlohmann::json::array()}});
        out.back()["options"].push_back(param_json(pass.options[i]));
    }
    return out;
}

nlohmann::json step_json(const StepDef& d) {
    nlohmann::json j = {{"name", d.name},
                        {"description", d.description},
                        {"kind", d.kind == StepKind::Gather ? "gather" : "map"},
                        {"version", d.version},
                        {"plugin", d.plugin.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.plugin)},
                        {"takes", d.takes_texture ? "texture" : "any"},
                        {"params", nlohmann::json::array()},
                        {"other_params", other_params_json(d)},
                        {"options_by_owner", options_by_owner_json(d)},
                        {"meta_keys", d.meta_keys ? nlohmann::json(*d.meta_keys) : nlohmann::json(nullptr)}};
    if (!d.plugin.empty()) j["plugin_file"] = d.plugin_file.string();
    for (const auto& p : d.params) j["params"].push_back(param_json(p));
    return j;
}

} // namespace

nlohmann::json describe_steps(const StepTable& table) {
    std::vector<const StepDef*> defs;
    for (const auto& name : table.names()) defs.push_back(table.find(name));
    std::stable_sort(defs.begin(), defs.end(), [](const StepDef* a, const StepDef* b) {
        if (a->plugin.empty() != b->plugin.empty()) return a->plugin.empty();
        return a->plugin < b->plugin;
    });
    nlohmann::json out = nlohmann::json::array();
    for (const StepDef* d : defs) out.push_back(step_json(*d));
    return out;
}

} // namespace af::engine
