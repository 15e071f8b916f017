// `assetforge steps`: every step a pipeline can name (built in, or a loaded
// plugin's stage), its parameters and who provides it.
#include "base/config_error.hpp"
#include "base/user_words.hpp"
#include "cli/cli_options.hpp"
#include "cli/step_reference.hpp"
#include "steps/pipeline_steps.hpp"
#include "steps/step_listing.hpp"

#include <algorithm>
#include <cstdio>
#include <iostream>

namespace af::cli {
namespace {

using engine::printable_name;

std::string text(const nlohmann::json& j) { return printable_name(j.get<std::string>()); }

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
    size_t wn = 0, wt = 0;
    for (const auto& p : s["params"]) {
        wn = std::max(wn, text(p["name"]).size());
        wt = std::max(wt, type_and_default(p).size());
    }
    // The valid values last: encode's format list would push a column off any terminal.
    for (const auto& p : s["params"]) {
        std::string values = printable_name(valid_values(p, false));
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
                std::string values = printable_name(valid_values(p, false));
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
        steps = engine::describe_steps(engine::pipeline_steps(ctx.registry));
    } catch (const engine::StepNameTaken& e) {
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
                std::cerr << "assetforge steps: " << printable_name(engine::not_one_of("step", want, all)) << "\n";
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

RegisterCommand steps_command{"steps", "List the steps pipelines can use, their parameters and who provides them", run_steps};

} // namespace
} // namespace af::cli
