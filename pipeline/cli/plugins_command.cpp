// `assetforge plugins`: what loaded, from where, with what; and what failed and why.
#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "cli/cli_options.hpp"
#include "host/isolation/isolation.hpp"
#include "steps/pipeline_steps.hpp"
#include "steps/step.hpp"

#include <nlohmann/json.hpp>

#include <cstdio>
#include <map>

namespace af::cli {
namespace {

std::string caps_text(uint32_t caps) {
    std::string s;
    if (caps & AF_CAN_READ) s += "read ";
    if (caps & AF_CAN_WRITE) s += "write ";
    if (caps & AF_CAN_INFO) s += "info ";
    if (!s.empty()) s.pop_back();
    return s;
}

std::string format_name(uint32_t id) {
    const FormatInfo* f = format_info(id);
    return f ? std::string(f->name) : std::to_string(id);
}

// Declared parameters (plugin API 1.2), or null when the plugin declares none (any is accepted).
nlohmann::json params_json(const af_param* const* list, uint32_t count) {
    if (!list) return nullptr;
    static const char* const types[] = {"text", "integer", "number", "bool", "enum", "file", "directory", "list"};
    nlohmann::json out = nlohmann::json::array();
    for (uint32_t i = 0; i < count; ++i) {
        af_param p = sdk::read_table<af_param>(list[i]);
        nlohmann::json j = {{"name", p.name},
                            {"type", p.type < std::size(types) ? types[p.type] : "text"},
                            {"doc", p.doc ? p.doc : ""}};
        if (p.choices) {
            j["choices"] = nlohmann::json::array();
            for (const char* const* c = p.choices; *c; ++c) j["choices"].push_back(*c);
        }
        if (p.default_value) j["default"] = p.default_value;
        if (p.flags & AF_PARAM_HAS_MIN) j["min"] = p.min;
        if (p.flags & AF_PARAM_HAS_MAX) j["max"] = p.max;
        if (p.flags & AF_PARAM_MIN_EXCLUSIVE) j["min_exclusive"] = true;
        if (p.flags & AF_PARAM_IGNORE_CASE) j["ignore_case"] = true;
        if (p.flags & AF_PARAM_REQUIRED) j["required"] = true;
        out.push_back(std::move(j));
    }
    return out;
}

nlohmann::json names_json(const char* const* list) {
    if (!list) return nullptr;
    nlohmann::json out = nlohmann::json::array();
    for (const char* const* k = list; *k; ++k) out.push_back(*k);
    return out;
}

// Names two plugins both claim: containers by name, step names (a plugin stage against a built-in step or another
// stage). Either makes some pipeline or file ambiguous, so `plugins` reports them as it reports failed loads.
std::vector<std::string> clashes(const host::PluginRegistry& reg) {
    std::vector<std::string> out;
    std::map<std::string, std::string> containers;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->containers)
            if (auto [it, fresh] = containers.emplace(c.name, p->name); !fresh)
                out.push_back("container '" + std::string(c.name) + "' is in plugins '" + it->second + "' and '" +
                              p->name + "'");
    try {
        (void)steps::pipeline_steps(reg);
    } catch (const steps::StepNameTaken& e) {
        out.push_back(e.what());
    }
    return out;
}

nlohmann::json plugin_json(const host::LoadedPlugin& pl) {
    nlohmann::json j = {{"name", pl.name},
                        {"version", pl.version},
                        {"description", pl.description},
                        {"path", pl.path.string()},
                        {"api", std::to_string(pl.api_major) + "." + std::to_string(pl.api_minor)},
                        {"binary_hash", pl.binary_hash.hex()},
                        {"sealed", pl.sealed}};
    // What held around the worker that loaded it: the host never loaded a sealed plugin itself.
    if (pl.sealed) j["confinement"] = pl.confinement;
    for (const auto& c : pl.containers)
        j["containers"].push_back({{"name", c.name},
                                   {"extensions", c.extensions ? c.extensions : ""},
                                   {"caps", caps_text(c.caps)},
                                   {"version", c.version},
                                   {"description", c.description ? c.description : ""},
                                   {"read_options", params_json(c.read_options, c.read_option_count)},
                                   {"write_options", params_json(c.write_options, c.write_option_count)},
                                   {"meta_keys", names_json(c.meta_keys)}});
    for (const auto& c : pl.codecs) {
        nlohmann::json fm = nlohmann::json::array();
        for (uint32_t i = 0; i < c.format_count; ++i) fm.push_back(format_name(c.formats[i]));
        j["codecs"].push_back({{"name", c.name},
                               {"version", c.version},
                               {"formats", fm},
                               {"decode", c.decode != nullptr},
                               {"encode", c.encode != nullptr},
                               {"decode_options", params_json(c.decode_options, c.decode_option_count)},
                               {"encode_options", params_json(c.encode_options, c.encode_option_count)}});
    }
    for (const auto& s : pl.stages)
        j["stages"].push_back({{"name", s.name},
                               {"version", s.version},
                               {"kind", s.kind == AF_STAGE_GATHER ? "gather" : "map"},
                               {"description", s.description ? s.description : ""},
                               {"params", params_json(s.param_decls, s.param_decl_count)},
                               {"param_names", names_json(s.params)},
                               {"meta_keys", names_json(s.meta_keys)},
                               {"reads_files", host::isolation::stage_reads_files(s)}});
    for (const auto& c : pl.commands)
        j["commands"].push_back({{"name", c.name}, {"summary", c.summary ? c.summary : ""}});
    return j;
}

// The listing for people: each plugin and what it provides, then failures and clashes.
void print_text(const nlohmann::json& out) {
    for (const auto& j : out["plugins"]) {
        std::printf("%s %s  (API %s)  %s\n", j["name"].get<std::string>().c_str(),
                    j["version"].get<std::string>().c_str(), j["api"].get<std::string>().c_str(),
                    j["path"].get<std::string>().c_str());
        if (j.contains("confinement"))
            std::printf("  loaded only in sealed workers (%s)\n", j["confinement"].get<std::string>().c_str());
        if (j.contains("containers"))
            for (const auto& c : j["containers"])
                std::printf("  container %-8s %-14s [%s] %s\n", c["name"].get<std::string>().c_str(),
                            c["extensions"].get<std::string>().c_str(), c["caps"].get<std::string>().c_str(),
                            c["description"].get<std::string>().c_str());
        if (j.contains("codecs"))
            for (const auto& c : j["codecs"]) {
                std::string fm;
                for (const auto& f : c["formats"]) fm += f.get<std::string>() + " ";
                std::printf("  codec     %-8s %s%s: %s\n", c["name"].get<std::string>().c_str(),
                            c["decode"].get<bool>() ? "decode " : "", c["encode"].get<bool>() ? "encode" : "",
                            fm.c_str());
            }
        if (j.contains("stages"))
            for (const auto& s : j["stages"])
                std::printf("  stage     %-14s (%s) %s%s\n", s["name"].get<std::string>().c_str(),
                            s["kind"].get<std::string>().c_str(), s["description"].get<std::string>().c_str(),
                            // A sealed worker cannot open files (docs/plugin-isolation.md, stages that open files).
                            s.value("reads_files", false) ? " [opens the files its parameters name]" : "");
        if (j.contains("commands"))
            for (const auto& c : j["commands"])
                std::printf("  command   %-8s %s\n", c["name"].get<std::string>().c_str(),
                            c["summary"].get<std::string>().c_str());
    }
    for (const auto& f : out["failures"])
        std::printf("FAILED %s: %s\n", f["path"].get<std::string>().c_str(), f["reason"].get<std::string>().c_str());
    for (const auto& c : out["clashes"]) std::printf("CLASH %s\n", c.get<std::string>().c_str());
    std::printf("searched:");
    for (const auto& d : out["search_path"]) std::printf(" %s", d.get<std::string>().c_str());
    std::printf("\n");
}

int run_plugins(Context& ctx, const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("json", "machine-readable output");
    po::positional_options_description pos;
    po::variables_map vm;
    if (auto rc = parse_args("assetforge plugins [--json]", args, opts, pos, vm)) return *rc;

    nlohmann::json out = nlohmann::json::object();
    out["search_path"] = nlohmann::json::array();
    for (const auto& d : ctx.registry.searched()) out["search_path"].push_back(d.string());
    out["plugins"] = nlohmann::json::array();
    for (const auto& p : ctx.registry.plugins()) out["plugins"].push_back(plugin_json(*p));
    out["failures"] = nlohmann::json::array();
    for (const auto& f : ctx.registry.failures())
        out["failures"].push_back({{"path", f.path.string()}, {"reason", f.reason}});

    out["clashes"] = nlohmann::json::array();
    for (const auto& c : clashes(ctx.registry)) out["clashes"].push_back(c);
    // A failed load or a clash is a broken installation: scripts and CI see it in the exit status.
    const int code = out["failures"].empty() && out["clashes"].empty() ? kExitOk : kExitInputFailed;
    if (vm.count("json")) {
        std::printf("%s\n", out.dump(2).c_str());
        return code;
    }
    print_text(out);
    return code;
}

RegisterCommand plugins_command{"plugins", "List loaded plugins, their capabilities, and load failures", run_plugins};

} // namespace
} // namespace af::cli
