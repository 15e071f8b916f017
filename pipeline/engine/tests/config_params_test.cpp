// Step parameters, output placeholders and repeated keys are checked when the
// pipeline loads: every mistake is a ConfigError naming file:line:column, the
// valid names and the closest one, never a silent default or a run-time failure.
#include "load/config_errors.hpp"
#include "steps/pipeline_steps.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;

namespace {

// The real built-in steps over a registry holding only the core (PNG).
const StepTable& real_steps() {
    static af::host::PluginRegistry registry;
    static StepTable table = pipeline_steps(registry);
    return table;
}

Pipeline parse(const std::string& yaml) { return parse_pipeline(yaml, "/proj/pipeline.yaml", {}, real_steps()); }

std::string param_error_of(const std::string& yaml) {
    try {
        parse(yaml);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

// One job; `steps` starts at line 5, column 12, `output` is line 6 (value at column 13).
std::string job(const std::string& steps, const std::string& output = "out/{stem}.dds") {
    return "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*.png\"\n    steps: " + steps + "\n    output: \"" + output +
           "\"\n";
}

Params params_of(const std::string& steps, const std::string& output = "out/{stem}.dds") {
    return parse(job(steps, output)).jobs.at(0).steps.at(0).params;
}

} // namespace

TEST_CASE("unknown parameters of read, encode and write are load errors with the valid names", "[config][params]") {
    std::string e = param_error_of(job("[ { encode: { fromat: bc7 } } ]"));
    CHECK_THAT(e, Catch::Contains("/proj/pipeline.yaml:5:26: 'fromat' is not a valid parameter of step 'encode'; "
                                  "valid: format, quality, like, grey, metrics"));
    CHECK_THAT(e, Catch::Contains("(did you mean 'format'?)"));
    for (const char* step : {"read", "encode", "write"}) {
        INFO(step);
        e = param_error_of(job(std::string("[ { ") + step + ": { zzz: 1 } } ]"));
        CHECK_THAT(e, Catch::Contains(std::string("/proj/pipeline.yaml:5:") +
                                      std::to_string(16 + std::string(step).size() + 4) + ": 'zzz' is not a valid " +
                                      "parameter of step '" + step + "'; valid: "));
    }
    // `write` knows the container from the output's extension: PNG's write options are valid there.
    CHECK(params_of("[ { write: { bit_depth: 16 } } ]", "out/{stem}.png").at("bit_depth") == "16");
    e = param_error_of(job("[ { write: { bit_dpeth: 16 } } ]", "out/{stem}.png"));
    CHECK_THAT(e, Catch::Contains("'bit_dpeth' is not a valid parameter of step 'write'"));
    CHECK_THAT(e, Catch::Contains("did you mean 'bit_depth'?"));
}

TEST_CASE("step parameter values are checked against their declared type at load", "[config][params]") {
    std::string e = param_error_of(job("[ { mips: { count: \"lots\" } } ]"));
    CHECK_THAT(e, Catch::Contains("/proj/pipeline.yaml:5:31: 'lots' is not a valid value for 'count' of step "
                                  "'mips': expected an integer in [0, 32]"));
    CHECK_THAT(param_error_of(job("[ { mips: { count: 33 } } ]")), Catch::Contains("expected an integer in [0, 32]"));
    CHECK_THAT(param_error_of(job("[ { mips: { min_size: 0 } } ]")), Catch::Contains("'min_size'"));
    CHECK_THAT(param_error_of(job("[ { resize: { scale: 0 } } ]")),
               Catch::Contains("'0' is not a valid value for 'scale' of step 'resize': expected a number in (0, 64]"));
    CHECK_THAT(param_error_of(job("[ { resize: { width: -1 } } ]")), Catch::Contains("'width'"));
    CHECK_THAT(param_error_of(job("[ { mips: { alpha_coverage: 1.5 } } ]")),
               Catch::Contains("expected a number in [0, 1]"));
    CHECK_THAT(
        param_error_of(job("[ { mips: { normal_map: maybe } } ]")),
        Catch::Contains("'maybe' is not a valid value for 'normal_map' of step 'mips'; valid: auto, true, false"));
    e = param_error_of(job("[ { encode: { format: bc8 } } ]"));
    CHECK_THAT(e, Catch::Contains("'bc8' is not a valid value for 'format' of step 'encode'"));
    CHECK_THAT(e, Catch::Contains("did you mean 'bc"));
    CHECK_THAT(param_error_of("assetforge: 1\njobs:\n  z:\n    inputs: \"*.png\"\n    gather: { zip: { level: 10 } }\n"
                              "    output: \"o/a.zip\"\n"),
               Catch::Contains("/proj/pipeline.yaml:5:29: '10' is not a valid value for 'level' of step 'zip': "
                               "expected an integer in [0, 9]"));

    // Booleans are normalised, so `yes` and `true` are the same parameters (and the same action key).
    CHECK(params_of("[ { encode: { metrics: yes } } ]").at("metrics") == "true");
    CHECK(params_of("[ { encode: { metrics: Off } } ]").at("metrics") == "false");
    // mips' normal_map is auto, true or false (auto: recognised by the one rule).
    CHECK(params_of("[ { mips: { normal_map: TRUE } } ]").at("normal_map") == "true");
    CHECK(params_of("[ mips ]").at("normal_map") == "auto");
    CHECK(params_of("[ { encode: { metrics: no } } ]").at("metrics") == "false");
    CHECK(params_of("[ { mips: { count: 0x4 } } ]").at("count") == "4");
    // What the code accepts is accepted: the codec's `max` quality, DXGI names in any case.
    CHECK(params_of("[ { encode: { quality: max } } ]").at("quality") == "max");
    CHECK(params_of("[ { encode: { format: BC7 } } ]").at("format") == "bc7");
    CHECK(params_of("[ { encode: { format: Auto } } ]").at("format") == "auto");
    CHECK(params_of("[ { encode: { format: R8G8B8A8_UNORM } } ]").at("format") == "R8G8B8A8_UNORM");
    CHECK(params_of("[ { resize: { scale: 0.5 } } ]").at("scale") == "0.5");
}

TEST_CASE("output placeholders must be ones the job's steps can fill", "[config][template]") {
    std::string e = param_error_of(job("[ copy ]", "out/{steem}.png"));
    CHECK_THAT(e, Catch::Contains("/proj/pipeline.yaml:6:13: 'steem' is not a valid output placeholder"));
    CHECK_THAT(e, Catch::Contains("did you mean 'stem'?"));
    CHECK_THAT(e, Catch::Contains("input_stem"));
    // `extract` adds layer/face/mip/level.
    CHECK(param_error_of(job("[ { extract: { what: mips } } ]", "out/{stem}_{mip}_{level}.png")).empty());
    e = param_error_of(job("[ { extract: { what: mips } } ]", "out/{stem}_{mips}.png"));
    CHECK_THAT(e, Catch::Contains("'mips' is not a valid output placeholder"));
    CHECK_THAT(e, Catch::Contains("did you mean 'mip'?"));
    CHECK_THAT(param_error_of(job("[ copy ]", "out/{mip}.png")),
               Catch::Contains("'mip' is not a valid output placeholder"));
    // A gather job's output is one item: it has no input of its own.
    e = param_error_of(
        "assetforge: 1\njobs:\n  z:\n    inputs: \"*.png\"\n    gather: zip\n    output: \"o/{input_stem}.zip\"\n");
    CHECK_THAT(e, Catch::Contains("'input_stem' is not a valid output placeholder"));
    CHECK(param_error_of(job("[ copy ]", "out/{dir}/{stem}.{ext} {name} {path} {job} {input_dir} {input_stem} "
                                         "{input_name} {input_ext} {{x}}"))
              .empty());
}

TEST_CASE("a key given twice in any map of the pipeline is an error", "[config][duplicate]") {
    std::string e = param_error_of("assetforge: 1\njobs:\n  j:\n    inputs: \"*.png\"\n    output: \"a/{stem}.png\"\n"
                                   "    output: \"b/{stem}.png\"\n");
    CHECK_THAT(e,
               Catch::Contains("/proj/pipeline.yaml:6:5: duplicate key 'output' (first at /proj/pipeline.yaml:5:5)"));
    e = param_error_of(job("[ { mips: { filter: box, filter: point } } ]"));
    CHECK_THAT(e,
               Catch::Contains("/proj/pipeline.yaml:5:37: duplicate key 'filter' (first at /proj/pipeline.yaml:5:24)"));
    e = param_error_of(
        "assetforge: 1\nvars: { a: 1 }\nvars: { b: 2 }\njobs: { j: { inputs: x, output: \"o/{stem}\" } }\n");
    CHECK_THAT(e, Catch::Contains("/proj/pipeline.yaml:3:1: duplicate key 'vars'"));
    e = param_error_of(
        "assetforge: 1\njobs:\n  j: { inputs: x, output: \"o/{stem}\" }\n  j: { inputs: y, output: \"p/{stem}\" }\n");
    CHECK_THAT(e, Catch::Contains("/proj/pipeline.yaml:4:3: duplicate key 'j'"));

    TestProject t;
    t.write("inc.yaml", "vars:\n  a: 1\n  a: 2\n");
    t.write("pipeline.yaml", "assetforge: 1\ninclude: inc.yaml\njobs: { j: { inputs: x, output: \"o/{stem}\" } }\n");
    try {
        load_pipeline(t.path("pipeline.yaml"), {}, real_steps());
        FAIL("expected an error");
    } catch (const ConfigError& x) {
        CHECK_THAT(x.what(), Catch::Contains("inc.yaml:3:3: duplicate key 'a'"));
    }
}

TEST_CASE("a pipeline using every built-in step with valid parameters loads", "[config][params]") {
    Pipeline p = parse(R"(assetforge: 1
jobs:
  dds:
    inputs: "src/**/*.png"
    steps:
      - read
      - { resize: { max_size: 512, filter: lanczos3 } }
      - { channels: { map: rgb1 } }
      - { mips: { filter: kaiser, count: 0, min_size: 4, alpha_coverage: 0.5, normal_map: false, edge: wrap } }
      - { encode: { format: auto, quality: high, metrics: true } }
    output: "out/{dir}/{stem}.dds"
  png:
    from: dds
    steps: [ { extract: { what: surfaces } }, { decode: { to: rgba8 } }, { write: { container: png, linear: on } } ]
    output: "out/png/{dir}/{stem}_{layer}_{face}_{mip}.png"
  zip:
    from: png
    gather: { zip: { compression: store, level: 0, manifest: m.json, prefix: p } }
    output: "out/all.zip"
)");
    REQUIRE(p.jobs.size() == 3);
    CHECK(p.job("dds")->steps.at(3).params.at("normal_map") == "false");
    CHECK(p.job("png")->steps.at(2).params.at("linear") == "true");
    CHECK(p.job("zip")->gather.params.at("level") == "0");
}

TEST_CASE("every bad parameter of a step is reported at once, each at its place", "[config][params]") {
    std::vector<std::string> lines;
    try {
        parse(job("[ { mips: { filter: boxy, normal_map: maybe, count: lots } } ]"));
    } catch (const ConfigError& e) {
        lines = config_error_lines(e);
    }
    INFO(lines.size());
    REQUIRE(lines.size() == 3);
    CHECK_THAT(lines[0], Catch::StartsWith("/proj/pipeline.yaml:5:32: 'boxy' is not a valid value for 'filter'"));
    CHECK_THAT(lines[1], Catch::StartsWith("/proj/pipeline.yaml:5:50: 'maybe' is not a valid value for 'normal_map'"));
    CHECK_THAT(lines[2], Catch::StartsWith("/proj/pipeline.yaml:5:64: 'lots' is not a valid value for 'count'"));
    // A step's own parameter wrong and two names it does not take: all three.
    lines.clear();
    try {
        parse(job("[ { encode: { quality: bogus, mipz: 3, colour: purple } } ]"));
    } catch (const ConfigError& e) {
        lines = config_error_lines(e);
    }
    REQUIRE(lines.size() == 3);
    CHECK_THAT(lines[1], Catch::Contains("'mipz' is not a valid parameter of step 'encode'"));
    CHECK_THAT(lines[2], Catch::Contains("'colour' is not a valid parameter of step 'encode'"));
}
