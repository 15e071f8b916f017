// The engine's pipeline loader on arbitrary text: YAML syntax, schema checks,
// include: merging, vars and presets expansion, job ordering and output
// templates. Every input gives a Pipeline or a ConfigError; any other
// exception, a crash or a hang is a finding.
//
// Includes resolve only among the files this harness writes to its own temp
// directory: an input whose top-level include: names anything else is
// rejected before the loader sees it, so the fuzzer never reads other files.
#include "base/output_template.hpp"
#include "load/config.hpp"
#include "steps/step.hpp"

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>

namespace fs = std::filesystem;
using namespace af::base;
using namespace af::steps;
using namespace af::load;

namespace {

const std::set<std::string> kIncludes = {"vars.yaml",        "loop_a.yaml", "loop_b.yaml",  "jobs.yaml",
                                         "nested/deep.yaml", "self.yaml",   "presets.yaml", "fan0.yaml"};

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

fs::path project() {
    static const fs::path dir = [] {
        char tmpl[] = "/tmp/af-fuzz-yaml-XXXXXX";
        if (!mkdtemp(tmpl)) std::abort();
        fs::path d = tmpl;
        write(d / "vars.yaml", "vars:\n  a: x\n  b: \"${a}/y\"\npresets:\n  std: [decode, {mips: {filter: box}}]\n");
        write(d / "loop_a.yaml", "include: loop_b.yaml\nvars: {la: 1}\n");
        write(d / "loop_b.yaml", "include: loop_a.yaml\nvars: {lb: 2}\n");
        write(d / "self.yaml", "include: [vars.yaml, self.yaml]\n");
        write(d / "jobs.yaml", "jobs:\n  inc:\n    inputs: \"src/*.png\"\n    steps: [decode, std]\n    output: "
                               "\"out/{dir}/{stem}.dds\"\n");
        write(d / "presets.yaml",
              "presets:\n  game_ready: [{mips: {filter: kaiser}}, {encode: {format: auto}}]\n"
              "  normal_map: [{mips: {filter: kaiser, normal_map: true}}, {encode: {format: bc5}}]\n"
              "  editable: [decode]\n");
        // Each fanN includes fanN+1 twice: no cycle, but 2^12 loads unless capped.
        for (int i = 0; i < 12; ++i)
            write(d / ("fan" + std::to_string(i) + ".yaml"),
                  "include: [fan" + std::to_string(i + 1) + ".yaml, fan" + std::to_string(i + 1) + ".yaml]\n");
        write(d / "fan12.yaml", "vars: {fan: leaf}\n");
        write(d / "nested/deep.yaml", "include: ../vars.yaml\nvars: {deep: \"${b}${b}\"}\n");
        return d;
    }();
    return dir;
}

StepTable make_steps() {
    StepTable t;
    add_engine_steps(t);
    // Stand-ins for the plugin-backed steps: the loader only checks names,
    // kinds and parameters, so these need no run function.
    auto any = [](const Params&, const std::string&) { return PassThrough{{}, true}; };
    t.add({.name = "decode", .provider = "fuzz"});
    t.add({.name = "mips",
           .params = {enum_param("filter", "kaiser", {"box", "kaiser", "mitchell"}, ""),
                      int_param("count", "", 0, 32, "")},
           .provider = "fuzz",
           .takes_texture = true,
           .pass_through = any});
    t.add({.name = "encode", .provider = "fuzz", .takes_texture = true, .pass_through = any});
    return t;
}

bool includes_allowed(const std::string& text) {
    YAML::Node doc;
    try {
        doc = YAML::Load(text);
    } catch (const YAML::Exception&) {
        return true; // the loader reports the syntax error itself
    }
    if (!doc.IsMap() || !doc["include"]) return true;
    const YAML::Node inc = doc["include"];
    if (inc.IsNull()) return true;
    if (inc.IsScalar()) return kIncludes.count(inc.Scalar()) > 0;
    if (!inc.IsSequence()) return true; // refused by the loader
    for (const auto& e : inc)
        if (e.IsScalar() && !kIncludes.count(e.Scalar())) return false;
    return true;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    static const StepTable steps = make_steps();
    const std::string text(reinterpret_cast<const char*>(data), size);
    if (!includes_allowed(text)) return -1; // keep such inputs out of the corpus

    // Output templates on their own: parse errors are std::invalid_argument.
    try {
        (void)OutputTemplate::parse(text.substr(0, 256));
    } catch (const std::invalid_argument&) {
    }

    try {
        Defines defines;
        if (size && (data[0] & 1)) defines.push_back({"a", "defined"});
        Pipeline p = parse_pipeline(text, project() / "pipeline.yaml", defines, steps);
        for (const auto& j : p.jobs) {
            OutputTemplate t = OutputTemplate::parse(j.output); // the loader accepted it: must not throw
            auto values =
                template_values("textures/sub/stone.png", {{"mip", "0"}, {"face", "1"}, {"level", "2"}}, j.name);
            try {
                fs::path out = resolve_output(t, values, p.root);
                // The loader checked the template's fixed directory against the
                // output root; the expansion must stay inside both.
                if (!path_within(out, p.output_root)) __builtin_trap();
            } catch (const std::runtime_error&) {
                // a placeholder with no value, or an escape: both refused with a message
            }
        }
    } catch (const ConfigError&) {
    }
    return 0;
}
