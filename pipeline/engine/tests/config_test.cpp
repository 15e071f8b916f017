#include "load/config_errors.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;

namespace {
std::string error_of(const std::string& yaml, const Defines& d = {}) {
    StepTable steps = png_test_steps();
    try {
        parse_pipeline(yaml, "/proj/pipeline.yaml", d, steps);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}
} // namespace

TEST_CASE("schema errors name file:line:column and suggest fixes", "[config]") {
    CHECK(error_of("jobs: {}\n") == "/proj/pipeline.yaml:1:1: missing 'assetforge: 1' (the schema version) at the "
                                    "top of the file");
    CHECK(error_of("assetforge: 2\njobs: {}\n").find("pipeline.yaml:1:13: unsupported 'assetforge' version '2'") !=
          std::string::npos);
    std::string e = error_of("assetforge: 1\njobz: {}\n");
    CHECK(e.find("pipeline.yaml:2:1: 'jobz' is not a valid top-level key") != std::string::npos);
    CHECK(e.find("did you mean 'jobs'?") != std::string::npos);

    e = error_of(R"(assetforge: 1
jobs:
  a:
    inputs: "*.png"
    stepz: [ invert ]
    output: "out/{stem}.png"
)");
    CHECK(e.find("pipeline.yaml:5:5: 'stepz' is not a valid key of job 'a'") != std::string::npos);
    CHECK(e.find("did you mean 'steps'?") != std::string::npos);

    e = error_of(R"(assetforge: 1
jobs:
  a:
    inputs: "*.png"
    steps: [ invrt ]
    output: "out/{stem}.png"
)");
    CHECK(e.find("pipeline.yaml:5:14: 'invrt' is not a valid step") != std::string::npos);
    CHECK(e.find("did you mean 'invert'?") != std::string::npos);

    e = error_of(R"(assetforge: 1
jobs:
  a:
    inputs: "*.png"
    steps:
      - invert: { amont: 3 }
    output: "out/{stem}.png"
)");
    CHECK(e.find("pipeline.yaml:6:19: 'amont' is not a valid parameter of step 'invert'; valid: amount") !=
          std::string::npos);

    e = error_of(R"(assetforge: 1
jobs:
  a:
    inputs: "*.png"
    gather: { zip: { compression: deflat } }
    output: "out/x.zip"
)");
    CHECK(e.find("pipeline.yaml:5:35: 'deflat' is not a valid value for 'compression' of step 'zip'; valid: "
                 "deflate, store (did you mean 'deflate'?)") != std::string::npos);

    e = error_of(R"(assetforge: 1
jobs:
  a:
    from: fist
    output: "out/{stem}.png"
  first:
    inputs: "*.png"
    output: "o/{stem}.png"
)");
    CHECK(e.find("pipeline.yaml:4:5: job 'a' from: 'fist' is not a valid job") != std::string::npos);
    CHECK(e.find("did you mean 'first'?") != std::string::npos);

    e = error_of("assetforge: 1\njobs:\n  a:\n    inputs: \"*.png\"\n    steps: [zip]\n    output: o/{stem}\n");
    CHECK(e.find("pipeline.yaml:5:13: step 'zip' gathers all inputs") != std::string::npos);

    e = error_of("assetforge: 1\njobs:\n  a:\n    inputs: \"*.png\"\n    output: \"o/{stem\"\n");
    CHECK(e.find("pipeline.yaml:5:13: output template 'o/{stem': '{' at column 3 is never closed") !=
          std::string::npos);

    e = error_of("assetforge: 1\njobs:\n  a:\n    inputs: [ \"*.png\"\n");
    CHECK(e.find("/proj/pipeline.yaml:5:1: YAML syntax error") == 0);
    CHECK(e.find("YAML syntax error") != std::string::npos);
}

TEST_CASE("variables, environment and -D overrides", "[config]") {
    StepTable steps = png_test_steps();
    setenv("AF_TEST_ENV_DIR", "fromenv", 1);
    const char* yaml = R"(assetforge: 1
vars: { src: "${env:AF_TEST_ENV_DIR}/tex", out: "build/${mode}", mode: debug }
jobs:
  a:
    inputs: "${src}/**/*.png"
    output: "${out}/{stem}.png"
)";
    const EnvAllowList allowed = {"AF_TEST_ENV_DIR"};
    auto p = parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps, allowed);
    CHECK(p.jobs[0].patterns == std::vector<std::string>{"fromenv/tex/**/*.png"});
    CHECK(p.jobs[0].output == "build/debug/{stem}.png");
    p = parse_pipeline(yaml, "/proj/pipeline.yaml", {{"mode", "release"}}, steps, allowed);
    CHECK(p.jobs[0].output == "build/release/{stem}.png");
    p = parse_pipeline(yaml, "/proj/pipeline.yaml", {{"out", "dist"}}, steps, allowed);
    CHECK(p.jobs[0].output == "dist/{stem}.png");

    std::string e = error_of("assetforge: 1\nvars: {out: b}\njobs:\n  a:\n    inputs: \"*.png\"\n    output: "
                             "\"${ot}/{stem}.png\"\n");
    CHECK(e.find("pipeline.yaml:6:13: unknown variable '${ot}'") != std::string::npos);
    CHECK(e.find("did you mean 'out'?") != std::string::npos);
    try {
        parse_pipeline("assetforge: 1\njobs:\n  a:\n    inputs: \"${env:AF_SURELY_UNSET_VAR}/*.png\"\n    output: "
                       "o/{stem}\n",
                       "/proj/pipeline.yaml", {}, steps, {"AF_SURELY_UNSET_VAR"});
        FAIL("an unset variable was accepted");
    } catch (const ConfigError& err) {
        CHECK(std::string(err.what()).find("environment variable 'AF_SURELY_UNSET_VAR' is not set") !=
              std::string::npos);
    }
}

TEST_CASE("${env:NAME} reads only the names the user allows, with or without a default", "[config]") {
    StepTable steps = png_test_steps();
    setenv("AF_TEST_SECRET_TOKEN", "hunter2", 1);
    for (const char* ref : {"${env:AF_TEST_SECRET_TOKEN}", "${env:AF_TEST_SECRET_TOKEN:-none}"}) {
        const std::string yaml =
            std::string("assetforge: 1\njobs:\n  a:\n    inputs: \"*.png\"\n    output: \"o/") + ref + "/{stem}\"\n";
        INFO(ref);
        try {
            parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps);
            FAIL("a variable nobody allowed was read");
        } catch (const ConfigError& err) {
            const std::string e = err.what();
            CHECK(e.find("pipeline.yaml:5:") != std::string::npos);
            CHECK(e.find("environment variable 'AF_TEST_SECRET_TOKEN', which is not allowed") != std::string::npos);
            CHECK(e.find("--allow-env AF_TEST_SECRET_TOKEN") != std::string::npos);
            CHECK(e.find("hunter2") == std::string::npos);
        }
        auto p = parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps, {"AF_TEST_SECRET_TOKEN"});
        CHECK(p.jobs[0].output == "o/hunter2/{stem}");
    }
    CHECK(parse_env_allow_list(" CI_MODE, GAME_DIR\tX,,") == EnvAllowList{"CI_MODE", "GAME_DIR", "X"});
}

TEST_CASE("parameters are normalised: defaults filled, so spelling them out changes nothing", "[config]") {
    StepTable steps = png_test_steps();
    auto a = parse_pipeline("assetforge: 1\njobs:\n  a:\n    inputs: x\n    steps: [invert]\n    output: o/{stem}\n",
                            "/p/pipeline.yaml", {}, steps);
    auto b = parse_pipeline(
        "assetforge: 1\njobs:\n  a:\n    inputs: x\n    steps: [{invert: {amount: 255}}]\n    output: o/{stem}\n",
        "/p/pipeline.yaml", {}, steps);
    CHECK(a.jobs[0].steps[0].params == b.jobs[0].steps[0].params);
}

TEST_CASE("presets and includes", "[config]") {
    TestProject t;
    t.write("presets/common.yaml", R"(presets:
  double_invert: [ invert, { invert: { amount: 128 } } ]
vars: { out: from_include }
)");
    t.write("pipeline.yaml", R"(assetforge: 1
include: presets/common.yaml
jobs:
  a:
    inputs: "src/*.png"
    steps: [ double_invert, copy ]
    output: "${out}/{stem}.png"
)");
    auto p = load_pipeline(t.path("pipeline.yaml"), {}, t.steps());
    REQUIRE(p.jobs[0].steps.size() == 3);
    CHECK(p.jobs[0].steps[1].params.at("amount") == "128");
    CHECK(p.jobs[0].output == "from_include/{stem}.png");

    t.write("pipeline.yaml", "assetforge: 1\ninclude: presets/missing.yaml\njobs: {}\n");
    try {
        load_pipeline(t.path("pipeline.yaml"), {}, t.steps());
        FAIL("expected an error");
    } catch (const ConfigError& e) {
        CHECK(std::string(e.what()).find("pipeline.yaml:2:10: cannot read") != std::string::npos);
    }
    t.write("presets/bad.yaml", "presets:\n  p: [ inver ]\n");
    t.write("pipeline.yaml",
            "assetforge: 1\ninclude: presets/bad.yaml\njobs:\n  a:\n    inputs: x\n    steps: [p]\n    "
            "output: o/{stem}\n");
    try {
        load_pipeline(t.path("pipeline.yaml"), {}, t.steps());
        FAIL("expected an error");
    } catch (const ConfigError& e) {
        // The position is in the included file, where the typo is.
        CHECK(std::string(e.what()).find("presets/bad.yaml:2:8: 'inver' is not a valid step") != std::string::npos);
    }
}

TEST_CASE("output templates may not leave the output root", "[config][template]") {
    std::string e = error_of("assetforge: 1\njobs:\n  a:\n    inputs: x\n    output: \"../elsewhere/{stem}.png\"\n");
    CHECK(e.find("pipeline.yaml:5:13: output '../elsewhere/{stem}.png' leaves the output root /proj") !=
          std::string::npos);
    e = error_of("assetforge: 1\njobs:\n  a:\n    inputs: x\n    output: \"out/{dir}/../../{stem}.png\"\n");
    CHECK(e.find("uses '..' after a placeholder") != std::string::npos);
    // Allowed when the root is widened on purpose, and the user allows that place (a pipeline file is code).
    StepTable steps = png_test_steps();
    const std::string widened = "assetforge: 1\noutput_root: ..\njobs:\n  a:\n    inputs: x\n    output: "
                                "\"../elsewhere/{stem}.png\"\n";
    CHECK_THROWS_WITH(
        parse_pipeline(widened, "/proj/pipeline.yaml", {}, steps),
        Catch::Contains("pipeline.yaml:2:14: output_root '..' writes under /, outside the project /proj") &&
            Catch::Contains("--allow-path /"));
    auto p = parse_pipeline(widened, "/proj/pipeline.yaml", {}, steps, {}, {"/"});
    CHECK(p.output_root == "/");
}

TEST_CASE("job cycles are refused", "[config]") {
    std::string e = error_of(R"(assetforge: 1
jobs:
  a: { from: b, output: "o/a/{stem}" }
  b: { from: a, output: "o/b/{stem}" }
)");
    CHECK(e.find("cycle") != std::string::npos);
}

TEST_CASE("presets take parameters with defaults, uses override them", "[config][preset]") {
    StepTable steps = png_test_steps();
    const std::string presets = R"(assetforge: 1
vars: { strength: 200 }
presets:
  tint:
    params: { amount: 100, pause: "${strength}" }
    steps: [ { invert: { amount: "${amount}" } }, { slow: { ms: "${pause}" } } ]
  twice:
    params: { amount: 7 }
    steps: [ { tint: { amount: "${amount}" } }, tint ]
)";
    auto p = parse_pipeline(presets + R"(jobs:
  a: { inputs: x, steps: [ tint ], output: "o/a/{stem}" }
  b: { inputs: x, steps: [ { tint: { amount: 3 } } ], output: "o/b/{stem}" }
  c: { inputs: x, steps: [ twice ], output: "o/c/{stem}" }
  d: { inputs: x, steps: [ { invert: { amount: "${strength}" } } ], output: "o/d/{stem}" }
)",
                            "/proj/pipeline.yaml", {}, steps);
    auto param = [&](const char* job, size_t step, const char* key) {
        return p.job(job)->steps.at(step).params.at(key);
    };
    CHECK(param("a", 0, "amount") == "100"); // the default
    CHECK(param("a", 1, "ms") == "200");     // a default may use variables
    CHECK(param("b", 0, "amount") == "3");   // overridden by the use
    CHECK(param("c", 0, "amount") == "7");   // a preset passes its parameter on to another
    CHECK(param("c", 2, "amount") == "100"); // and the inner default applies where it does not
    CHECK(param("d", 0, "amount") == "200"); // outside presets the names are plain variables again

    std::string e =
        error_of(presets + "jobs:\n  a: { inputs: x, steps: [ { tint: { amout: 3 } } ], output: \"o/{stem}\" }\n");
    CHECK(e.find("pipeline.yaml:11:38: 'amout' is not a valid parameter of preset 'tint'") != std::string::npos);
    CHECK(e.find("did you mean 'amount'?") != std::string::npos);
    e = error_of("assetforge: 1\npresets:\n  p: [ invert ]\njobs:\n  a: { inputs: x, steps: [ { p: { amount: 1 } } ], "
                 "output: \"o/{stem}\" }\n");
    CHECK(e.find("preset 'p' takes no parameters (got 'amount')") != std::string::npos);
    e = error_of("assetforge: 1\npresets:\n  p: { params: { a: 1 }, stepz: [ invert ] }\njobs:\n  a: { inputs: x, "
                 "steps: [ p ], output: \"o/{stem}\" }\n");
    CHECK(e.find("'stepz' is not a valid key of preset 'p'") != std::string::npos);
}

TEST_CASE("a -D the pipeline never uses is an error that suggests the variable meant", "[config]") {
    const char* yaml = "assetforge: 1\nvars: { out: build }\njobs:\n  a:\n    inputs: \"${src}/*.png\"\n"
                       "    output: \"${out}/{stem}.png\"\n";
    StepTable steps = png_test_steps();
    // Declared, or only read: both are uses.
    CHECK(parse_pipeline(yaml, "/proj/pipeline.yaml", {{"src", "tex"}, {"out", "o"}}, steps).jobs[0].output ==
          "o/{stem}.png");
    std::string e = error_of(yaml, {{"src", "tex"}, {"scr", "tex"}});
    CHECK(e.find("-D scr=...: the pipeline has no variable 'scr' (its variables: out, src)") != std::string::npos);
    CHECK(e.find("did you mean 'src'?") != std::string::npos);
    // Read inside another variable's value counts too.
    const char* nested = "assetforge: 1\nvars: { out: \"${root}/build\" }\njobs:\n  a:\n    inputs: \"*.png\"\n"
                         "    output: \"${out}/{stem}.png\"\n";
    CHECK(error_of(nested, {{"root", "r"}}).empty());
}

TEST_CASE("every mistake of a pipeline file is reported in one run, up to a cap", "[config]") {
    StepTable steps = png_test_steps();
    std::string yaml = R"(assetforge: 1
jobs:
  a:
    inputs: "*.png"
    steps: [ invrt, { invert: { amont: 3 } } ]
    output: "out/{stem}.png"
  b:
    inputz: "*.png"
    output: "out/b/{stem}.png"
  c:
    inputs: "*.png"
    output: "out/c/{stm}.png"
)";
    try {
        parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps);
        FAIL("no error");
    } catch (const ConfigError& err) {
        auto lines = config_error_lines(err);
        std::string all;
        for (const auto& l : lines) all += l + "\n";
        INFO(all);
        CHECK(lines.size() >= 4);
        CHECK(all.find("pipeline.yaml:5:14: 'invrt' is not a valid step") != std::string::npos);
        CHECK(all.find("'amont' is not a valid parameter of step 'invert'") != std::string::npos);
        CHECK(all.find("pipeline.yaml:8:5: 'inputz' is not a valid key of job 'b'") != std::string::npos);
        CHECK(all.find("pipeline.yaml:12:") != std::string::npos);
        // The first is still what() and pos(), for callers that show one.
        CHECK(std::string(err.what()).find("'invrt' is not a valid step") != std::string::npos);
    }
    std::string many = "assetforge: 1\njobs:\n";
    for (int i = 0; i < 30; ++i)
        many += "  j" + std::to_string(i) + ":\n    inputs: \"*.png\"\n    steps: [ nope" + std::to_string(i) +
                " ]\n    output: \"o" + std::to_string(i) + "/{stem}.png\"\n";
    try {
        parse_pipeline(many, "/proj/pipeline.yaml", {}, steps);
        FAIL("no error");
    } catch (const ConfigError& err) {
        auto lines = config_error_lines(err);
        REQUIRE(lines.size() == ConfigErrorCollector::kCap + 1);
        CHECK(lines.back() == "... and 10 more errors");
    }
}

TEST_CASE("input folders given with -D are known to the job (a link there is the user's choice)", "[config]") {
    StepTable steps = png_test_steps();
    const char* yaml = "assetforge: 1\nvars: { src: tex }\njobs:\n  a:\n    inputs: [\"${src}/**/*.png\", "
                       "\"other/*.png\"]\n    output: \"out/{stem}.png\"\n";
    auto p = parse_pipeline(yaml, "/proj/pipeline.yaml", {}, steps);
    CHECK(p.jobs[0].named_folders.empty()); // the file's own default is not the command line
    p = parse_pipeline(yaml, "/proj/pipeline.yaml", {{"src", "game/"}}, steps);
    CHECK(p.jobs[0].named_folders == std::vector<std::filesystem::path>{"/proj/game"});
    p = parse_pipeline(yaml, "/proj/pipeline.yaml", {{"src", "/mnt/game"}}, steps);
    CHECK(p.jobs[0].named_folders == std::vector<std::filesystem::path>{"/mnt/game"});
}
