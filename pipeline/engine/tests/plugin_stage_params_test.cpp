// Plugin stages as steps: what a stage declares through plugin API 1.2 (typed
// parameters, metadata keys) is checked when the pipeline loads; a stage built
// against an older API declares nothing and keeps accepting anything.
#include "assetforge/plugin.hpp"
#include "load/config.hpp"
#include "steps/texture_steps.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace af::base;
using namespace af::steps;
using namespace af::load;

namespace {

af_status no_run(const af_host*, const af_stage_io*, const af_options*, af_error*) { return AF_OK; }

af_stage stage_named(const char* name) {
    af_stage s{};
    af::sdk::init_header(s);
    s.name = name;
    s.version = 1;
    s.kind = AF_STAGE_MAP;
    s.takes = AF_STAGE_TAKES_BYTES;
    s.run = no_run;
    return s;
}

// The table of a plugin built against API 1.1: it ends at `run`.
af_stage old_stage(const char* name) {
    af_stage s = stage_named(name);
    s.struct_size = uint32_t(offsetof(af_stage, run) + sizeof s.run);
    s.api_minor = 1;
    return af::sdk::read_table<af_stage>(&s); // what the loader keeps: zero past struct_size
}

const af::sdk::ParamTable& typed_params() {
    static const af::sdk::ParamTable t{
        af::sdk::one_of("format", {"auto", "DXT1", "DXT3", "DXT5"}, "format").def("auto").any_case(),
        af::sdk::integer("count", 1, 8, "how many"),
        af::sdk::number("scale", 0, 4, "factor", true),
        af::sdk::boolean("flag", "on or off"),
        af::sdk::file("lut", "a lookup table the stage reads"),
        af::sdk::directory("replacements", "a folder the stage reads").required(),
        af::sdk::list("channels", "which channels", {"r", "g", "b", "a"}),
        af::sdk::text("note", "anything"),
    };
    return t;
}

const char* const kMeta[] = {"frame", "tile", nullptr};

StepTable table_with(std::initializer_list<af_stage> stages) {
    static af::host::LoadedPlugin plugin; // name, version and hash only go into action keys
    StepTable t;
    add_engine_steps(t);
    for (const auto& s : stages) t.add(plugin_stage_step(s, plugin));
    return t;
}

std::string stage_job(const std::string& steps, const std::string& output = "out/{stem}.bin") {
    return "assetforge: 1\njobs:\n  j:\n    inputs: \"src/*\"\n    steps: " + steps + "\n    output: \"" + output +
           "\"\n";
}

std::string error_of(const StepTable& t, const std::string& yaml) {
    try {
        parse_pipeline(yaml, "/proj/pipeline.yaml", {}, t);
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

} // namespace

TEST_CASE("a stage built against the old API takes any parameter and may set any metadata", "[config][plugin]") {
    StepTable t = table_with({old_stage("old.stage")});
    const StepDef* d = t.find("old.stage");
    REQUIRE(d);
    CHECK(d->params.empty());
    CHECK_FALSE(d->meta_keys);
    auto p = parse_pipeline(stage_job("[ { old.stage: { anything: 1, goes: [a, b] } } ]", "out/{whatever}/{stem}"),
                            "/proj/pipeline.yaml", {}, t);
    CHECK(p.jobs[0].steps[0].params.at("anything") == "1");
    CHECK(p.jobs[0].steps[0].params.at("goes") == "a,b");
}

TEST_CASE("a stage that lists parameter names only takes those names, with any value", "[config][plugin]") {
    static const char* const names[] = {"size", nullptr};
    af_stage s = old_stage("named.stage");
    s.params = names;
    StepTable t = table_with({s});
    CHECK(error_of(t, stage_job("[ { named.stage: { size: whatever } } ]", "out/{x}")).empty());
    CHECK_THAT(error_of(t, stage_job("[ { named.stage: { sise: 1 } } ]")),
               Catch::Contains("'sise' is not a valid parameter of step 'named.stage'; valid: size (did you mean "
                               "'size'?)"));
}

TEST_CASE("a stage's declared parameter types, choices and metadata are checked at load", "[config][plugin]") {
    af_stage s = stage_named("new.stage");
    af::sdk::declare_params(s, typed_params());
    s.meta_keys = kMeta;
    StepTable t = table_with({s});
    const StepDef* d = t.find("new.stage");
    REQUIRE(d);
    REQUIRE(d->params.size() == 8);
    CHECK(d->params[0].type == ParamType::Enum);
    CHECK(d->params[1].type == ParamType::Integer);
    CHECK(d->params[2].type == ParamType::Number);
    CHECK(d->params[3].type == ParamType::Bool);
    CHECK(d->params[4].type == ParamType::File);
    CHECK(d->params[5].type == ParamType::Dir);
    CHECK(d->params[6].type == ParamType::List);
    CHECK(d->params[7].type == ParamType::Text);
    CHECK(d->meta_keys == std::vector<std::string>{"frame", "tile"});

    const std::string ok = "{ new.stage: { replacements: edits } }";
    auto p = parse_pipeline(stage_job("[ " + ok + " ]", "out/{stem}_{frame}_{tile}.bin"), "/proj/pipeline.yaml", {}, t);
    CHECK(p.jobs[0].steps[0].params.at("format") == "auto"); // the declared default is filled in

    CHECK_THAT(error_of(t, stage_job("[ { new.stage: { format: DXT7, replacements: e } } ]")),
               Catch::Contains("/proj/pipeline.yaml:5:37: 'DXT7' is not a valid value for 'format' of step "
                               "'new.stage'; valid: auto, DXT1, DXT3, DXT5 (did you mean 'DXT1'?)"));
    p = parse_pipeline(stage_job("[ { new.stage: { format: dxt5, replacements: e } } ]"), "/proj/pipeline.yaml", {}, t);
    CHECK(p.jobs[0].steps[0].params.at("format") == "DXT5"); // any case, passed on as declared
    CHECK_THAT(error_of(t, stage_job("[ { new.stage: { count: 9, replacements: e } } ]")),
               Catch::Contains("expected an integer in [1, 8]"));
    CHECK_THAT(error_of(t, stage_job("[ { new.stage: { scale: 0, replacements: e } } ]")),
               Catch::Contains("expected a number in (0, 4]"));
    CHECK_THAT(error_of(t, stage_job("[ { new.stage: { flag: sure, replacements: e } } ]")),
               Catch::Contains("expected true or false"));
    CHECK_THAT(error_of(t, stage_job("[ { new.stage: { channels: [r, q], replacements: e } } ]")),
               Catch::Contains("'q' is not a valid element of value for 'channels'"));
    CHECK_THAT(error_of(t, stage_job("[ new.stage ]")),
               Catch::Contains("/proj/pipeline.yaml:5:14: step 'new.stage' needs the parameter 'replacements'"));
    CHECK_THAT(error_of(t, stage_job("[ " + ok + " ]", "out/{frame}_{tlie}.bin")),
               Catch::Contains("'tlie' is not a valid output placeholder"));
}
