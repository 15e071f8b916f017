// `assetforge steps`: every step a pipeline can name (built in, or a loaded
// plugin's stage), its parameters and who provides it. The JSON form
// (--json) is the model: the terminal and Markdown forms (--markdown, the
// generated part of docs/steps.md that scripts/update-step-docs.sh puts
// there) are made from it, so the three never disagree.
#include "base/config_error.hpp"
#include "base/user_words.hpp"
#include "cli/cli_options.hpp"
#include "host/isolation/isolation.hpp"
#include "steps/pipeline_steps.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace af::cli {
namespace {

using steps::Params;
using steps::ParamSpec;
using steps::ParamType;
using steps::PassThrough;
using steps::StepDef;
using steps::StepTable;

// ---- the model -------------------------------------------------------------

const char* type_name(steps::ParamType t) {
    switch (t) {
    case steps::ParamType::Text:
        return "text";
    case steps::ParamType::Integer:
        return "integer";
    case steps::ParamType::Number:
        return "number";
    case steps::ParamType::Bool:
        return "bool";
    case steps::ParamType::Enum:
        return "enum";
    case steps::ParamType::File:
        return "file";
    case steps::ParamType::Dir:
        return "directory";
    case steps::ParamType::List:
        return "list";
    }
    return "text";
}

// Whole bounds print as integers ("0", not "0.0").
nlohmann::json bound(double v) {
    if (std::trunc(v) == v && std::fabs(v) < 9e15) return int64_t(v);
    return v;
}

nlohmann::json param_json(const steps::ParamSpec& p) {
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
nlohmann::json other_params_json(const steps::StepDef& d) {
    if (!d.pass_through) return nullptr;
    steps::Params defaults;
    for (const auto& p : d.params)
        if (!p.default_value.empty()) defaults[p.name] = p.default_value;
    const steps::PassThrough pass = d.pass_through(defaults, "");
    if (pass.any) return "any";
    std::vector<std::string> names;
    for (const auto& o : pass.options)
        if (std::find(names.begin(), names.end(), o.name) == names.end()) names.push_back(o.name);
    std::sort(names.begin(), names.end());
    return names;
}

// The same options by the container or codec that declares them, each with
// its type, default and doc: two containers' `srgb` may differ in both.
nlohmann::json options_by_owner_json(const steps::StepDef& d) {
    if (!d.pass_through) return nlohmann::json::array();
    steps::Params defaults;
    for (const auto& p : d.params)
        if (!p.default_value.empty()) defaults[p.name] = p.default_value;
    const steps::PassThrough pass = d.pass_through(defaults, "");
    nlohmann::json out = nlohmann::json::array();
    if (pass.owners.size() != pass.options.size()) return out;
    for (size_t i = 0; i < pass.options.size(); ++i) {
        if (out.empty() || out.back()["owner"] != pass.owners[i])
            out.push_back({{"owner", pass.owners[i]}, {"options", nlohmann::json::array()}});
        out.back()["options"].push_back(param_json(pass.options[i]));
    }
    return out;
}

nlohmann::json step_json(const steps::StepDef& d) {
    nlohmann::json j = {{"name", d.name},
                        {"description", d.description},
                        {"kind", d.kind == steps::StepKind::Gather ? "gather" : "map"},
                        {"version", d.version},
                        {"plugin", d.plugin.empty() ? nlohmann::json(nullptr) : nlohmann::json(d.plugin)},
                        {"takes", d.takes_texture ? "texture" : "any"},
                        {"params", nlohmann::json::array()},
                        {"other_params", other_params_json(d)},
                        {"options_by_owner", options_by_owner_json(d)},
                        {"meta_keys", d.meta_keys ? nlohmann::json(*d.meta_keys) : nlohmann::json(nullptr)}};
    if (!d.plugin.empty()) j["plugin_file"] = d.plugin_file.string();
    for (const auto& p : d.params) j["params"].push_back(param_json(p));
    // A plugin stage with a file or folder parameter opens files itself, which a sealed worker cannot
    // (host/isolation/isolation.hpp: stage_reads_files): where it runs depends on it.
    if (!d.plugin.empty()) {
        const bool reads_files = std::any_of(d.params.begin(), d.params.end(), [](const steps::ParamSpec& p) {
            return p.type == steps::ParamType::File || p.type == steps::ParamType::Dir;
        });
        j["reads_files"] = reads_files;
        j["third_party"] = host::isolation::third_party(d.plugin_file);
    }
    return j;
}

nlohmann::json describe_steps(const steps::StepTable& table) {
    std::vector<const steps::StepDef*> defs;
    for (const auto& name : table.names()) defs.push_back(table.find(name));
    std::stable_sort(defs.begin(), defs.end(), [](const steps::StepDef* a, const steps::StepDef* b) {
        if (a->plugin.empty() != b->plugin.empty()) return a->plugin.empty();
        return a->plugin < b->plugin;
    });
    nlohmann::json out = nlohmann::json::array();
    for (const steps::StepDef* d : defs) out.push_back(step_json(*d));
    return out;
}

// ---- the parameter reference ------------------------------------------------

std::string str(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? "" : it->is_string() ? it->get<std::string>() : it->dump();
}

// Descriptions come from plugins: a '|' would split a table cell, a newline the table.
std::string cell(const std::string& s) {
    std::string out;
    for (char c : base::printable_name(s)) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string joined(const nlohmann::json& list, bool code) {
    std::string out;
    for (const auto& v : list) {
        if (!out.empty()) out += ", ";
        out += code ? "`" + v.get<std::string>() + "`" : v.get<std::string>();
    }
    return out;
}

std::string valid_values(const nlohmann::json& p, bool code) {
    std::string out;
    if (p.contains("choices")) out = (p["type"] == "list" ? "list of " : "") + joined(p["choices"], code);
    if (p.contains("also")) out += ", or " + p["also"].get<std::string>();
    if (p.contains("ignore_case")) out += " (any case)";
    const std::string lo = str(p, "min"), hi = str(p, "max");
    if (!lo.empty() && !hi.empty())
        out = p.contains("min_exclusive") ? "(" + lo + ", " + hi + "]" : lo + ".." + hi;
    else if (!lo.empty())
        out = (p.contains("min_exclusive") ? "> " : ">= ") + lo;
    else if (!hi.empty())
        out = "<= " + hi;
    return out;
}

std::string step_reference_markdown(const nlohmann::json& steps) {
    std::ostringstream md;
    for (const auto& s : steps) {
        md << "#### `" << s["name"].get<std::string>() << "`";
        if (!s["plugin"].is_null()) md << " (plugin `" << s["plugin"].get<std::string>() << "`)";
        md << "\n\n" << cell(s["description"].get<std::string>()) << "\n\n";
        md << (s["kind"] == "gather" ? "Gathers every input of the job into one action; " : "Runs once per item; ");
        md << (s["takes"] == "texture" ? "reads its input into a texture first.\n\n" : "takes bytes or textures.\n\n");
        if (!s["params"].empty()) {
            md << "| parameter | type | default | valid values | meaning |\n|---|---|---|---|---|\n";
            for (const auto& p : s["params"]) {
                std::string def = p.contains("required") ? "required" : str(p, "default");
                if (!def.empty() && def != "required") def = "`" + def + "`";
                md << "| `" << p["name"].get<std::string>() << "` | " << p["type"].get<std::string>() << " | "
                   << cell(def) << " | " << cell(valid_values(p, true)) << " | " << cell(p["doc"].get<std::string>())
                   << " |\n";
            }
            md << "\n";
        } else if (s["other_params"].is_null()) {
            md << "No parameters.\n\n";
        }
        const auto& other = s["other_params"];
        if (other == "any")
            md << "Takes any parameter: its plugin declares none (built against plugin API 1.0/1.1).\n\n";
        else if (other.is_array() && !other.empty()) {
            md << "Also takes the options that the loaded containers or codecs declare, each for its own:\n\n"
               << "| of | option | type | default | valid values | meaning |\n|---|---|---|---|---|---|\n";
            for (const auto& o : s["options_by_owner"])
                for (const auto& p : o["options"]) {
                    std::string def = str(p, "default");
                    if (!def.empty()) def = "`" + def + "`";
                    md << "| " << o["owner"].get<std::string>() << " | `" << p["name"].get<std::string>() << "` | "
                       << p["type"].get<std::string>() << " | " << cell(def) << " | " << cell(valid_values(p, true))
                       << " | " << cell(p["doc"].get<std::string>()) << " |\n";
                }
            md << "\n";
        }
        if (s.value("reads_files", false) && !s.value("third_party", false))
            md << "Opens the files its parameters name itself, so it runs inside assetforge even under `--isolate "
                  "all` (a sealed worker could not open them).\n\n";
        if (s["meta_keys"].is_array() && !s["meta_keys"].empty()) {
            std::string keys;
            for (const auto& k : s["meta_keys"]) keys += (keys.empty() ? "`{" : ", `{") + k.get<std::string>() + "}`";
            md << "Output placeholders it fills: " << keys << ".\n\n";
        }
    }
    std::string out = md.str();
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
    return out;
}

// ---- the command --------------------------------------------------------------

using base::printable_name;

std::string text(const nlohmann::json& j) { return base::printable_name(j.get<std::string>()); }

// "integer = 1", "integer, required", "enum = auto".
std::string type_and_default(const nlohmann::json& p) {
    std::string s = p["type"].get<std::string>();
    if (p.contains("required")) return s + ", required";
    if (p.contains("default")) s += " = " + text(p["default"]);
    return s;
}

void print_step(const nlohmann::json& s) {
    std::string who = s["plugin"].is_null() ? "built in" : "plugin " + text(s["plugin"]);
    std::printf("%s  (%s, %s%s)\n", text(s["name"]).c_str(), who.c_str(), s["kind"].get<std::string>().c_str(),
                s["takes"] == "texture" ? ", texture" : "");
    if (!s["description"].get<std::string>().empty()) std::printf("  %s\n", text(s["description"]).c_str());
    if (s.value("reads_files", false))
        std::printf(s.value("third_party", false)
                        ? "  reads the files its parameters name itself: in its sealed worker it cannot open them\n"
                        : "  reads the files its parameters name itself, so it runs inside assetforge under --isolate "
                          "all (a sealed worker cannot open them)\n");
    size_t wn = 0, wt = 0;
    for (const auto& p : s["params"]) {
        wn = std::max(wn, text(p["name"]).size());
        wt = std::max(wt, type_and_default(p).size());
    }
    // The valid values last: encode's format list would push a column off any terminal.
    for (const auto& p : s["params"]) {
        std::string values = base::printable_name(valid_values(p, false));
        std::printf("    %-*s  %-*s  %s%s\n", int(wn), text(p["name"]).c_str(), int(wt), type_and_default(p).c_str(),
                    text(p["doc"]).c_str(), values.empty() ? "" : (" [" + values + "]").c_str());
    }
    const auto& other = s["other_params"];
    if (other == "any") std::printf("    (any parameter: the plugin declares none)\n");
    if (other.is_array() && !other.empty()) {
        // Per container or codec: the same name may mean, and default to, different things in two of them.
        std::printf("    also the options of the containers or codecs it hands on to:\n");
        for (const auto& o : s["options_by_owner"]) {
            std::printf("      %s:\n", text(o["owner"]).c_str());
            size_t on = 0, ot = 0;
            for (const auto& p : o["options"]) {
                on = std::max(on, text(p["name"]).size());
                ot = std::max(ot, type_and_default(p).size());
            }
            for (const auto& p : o["options"]) {
                std::string values = base::printable_name(valid_values(p, false));
                std::printf("        %-*s  %-*s  %s%s\n", int(on), text(p["name"]).c_str(), int(ot),
                            type_and_default(p).c_str(), text(p["doc"]).c_str(),
                            values.empty() ? "" : (" [" + values + "]").c_str());
            }
        }
    }
}

int run_steps(Context& ctx, const std::vector<std::string>& args) {
    po::options_description opts("options");
    opts.add_options()("json", "machine-readable output")(
        "markdown", "the parameter reference as Markdown (the generated part of docs/steps.md)")(
        "step", po::value<std::vector<std::string>>(), "only these steps");
    po::positional_options_description pos;
    pos.add("step", -1);
    po::variables_map vm;
    if (auto rc = parse_args("assetforge steps [STEP]… [--json | --markdown]", args, opts, pos, vm)) return *rc;
    if (vm.count("json") && vm.count("markdown")) {
        std::cerr << "assetforge steps: --json and --markdown exclude each other\n";
        return kExitUsage;
    }
    nlohmann::json steps;
    try {
        steps = describe_steps(steps::pipeline_steps(ctx.registry));
    } catch (const steps::StepNameTaken& e) {
        std::cerr << "assetforge: " << printable_name(e.what()) << "\n";
        return kExitUsage;
    }
    if (vm.count("step")) {
        std::vector<std::string> all;
        for (const auto& s : steps) all.push_back(s["name"]);
        nlohmann::json chosen = nlohmann::json::array();
        for (const auto& want : vm["step"].as<std::vector<std::string>>()) {
            auto it = std::find(all.begin(), all.end(), want);
            if (it == all.end()) {
                std::cerr << "assetforge steps: " << base::printable_name(base::not_one_of("step", want, all)) << "\n";
                return kExitUsage;
            }
            chosen.push_back(steps[size_t(it - all.begin())]);
        }
        steps = chosen;
    }
    if (vm.count("json")) {
        std::printf("%s\n", steps.dump(2).c_str());
    } else if (vm.count("markdown")) {
        std::printf("%s\n", step_reference_markdown(steps).c_str());
    } else {
        for (size_t i = 0; i < steps.size(); ++i) {
            if (i) std::printf("\n");
            print_step(steps[i]);
        }
    }
    return kExitOk;
}

RegisterCommand steps_command{"steps", "List the steps pipelines can use, their parameters and who provides them",
                              run_steps};

} // namespace
} // namespace af::cli
