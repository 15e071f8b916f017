// Which paths a remote cache entry may name for one action: exactly the predicted outputs, or, for outputs
// named at run time, paths the template produces for this action's input that no one else has.
#include "engine/cached_entry_paths.hpp"

#include <catch2/catch.hpp>

using namespace af::base;
using namespace af::engine;

namespace {

CachedOutputRule rule_for(const OutputTemplate& tpl, bool keeps_names, const std::string& input_name) {
    CachedOutputRule r;
    r.project_root = "/p";
    r.out_base = "/p/" + tpl.static_prefix();
    while (r.out_base.ends_with('/')) r.out_base.pop_back();
    r.tpl = &tpl;
    r.predicted = predicted_outputs(tpl, false, keeps_names, input_name, "tex", "/p");
    r.fixed = input_name_values(false, input_name, "tex");
    return r;
}

} // namespace

TEST_CASE("an entry for a predicted action must name exactly its outputs", "[remote][entry]") {
    const auto tpl = OutputTemplate::parse("out/{dir}/{stem}.dds");
    const auto rule = rule_for(tpl, true, "a.png");
    REQUIRE(rule.predicted);
    CHECK(*rule.predicted == std::vector<std::string>{"/p/out/a.dds"});
    CHECK(cached_paths_problem(rule, {"out/a.dds"}).empty());
    CHECK(cached_paths_problem(rule, {"out/evil.txt"}) == "names out/evil.txt, which is not an output of this action");
    CHECK(cached_paths_problem(rule, {"out/b.dds"}) == "names out/b.dds, which is not an output of this action");
    CHECK_FALSE(cached_paths_problem(rule, {"out/a.dds", "out/evil.txt"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {"out/a.dds", "out/a.dds"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {"out/.af-tmp-0123456789abcdef"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {".assetforge/state.db"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {"pipeline.yaml"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {}).empty());
    const auto nested = rule_for(tpl, true, "sub/b.png");
    CHECK(cached_paths_problem(nested, {"out/sub/b.dds"}).empty());
    CHECK_FALSE(cached_paths_problem(nested, {"out/b.dds"}).empty());
}

TEST_CASE("outputs named at run time: the template's shape for this input, nothing taken", "[remote][entry]") {
    const auto tpl = OutputTemplate::parse("out/{dir}/{stem}_{mip}.png");
    auto rule = rule_for(tpl, false, "a.png");
    CHECK_FALSE(rule.predicted);
    std::vector<std::string> taken_asked;
    rule.taken = [&](const std::string& abs) {
        taken_asked.push_back(abs);
        return abs == "/p/out/a_9.png";
    };
    CHECK(cached_paths_problem(rule, {"out/a_0.png", "out/a_1.png"}).empty());
    CHECK(cached_paths_problem(rule, {"out/evil.txt"}) ==
          "names out/evil.txt, which the output template cannot produce for this action");
    // Another input's outputs ({stem} is this action's), and paths the template cannot reach.
    CHECK_FALSE(cached_paths_problem(rule, {"out/b_0.png"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {"out/x/a_0.png"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {"out/a_0/1.png"}).empty());
    CHECK_FALSE(cached_paths_problem(rule, {"out/.af-tmp-a_0.png"}).empty());
    CHECK(cached_paths_problem(rule, {"out/a_9.png"}) == "names out/a_9.png, which is not this action's to write");
    const auto nested = [&] {
        auto r = rule_for(tpl, false, "x/y/a.png");
        r.taken = [](const std::string&) { return false; };
        return r;
    }();
    CHECK(cached_paths_problem(nested, {"out/x/y/a_0.png"}).empty());
    CHECK_FALSE(cached_paths_problem(nested, {"out/a_0.png"}).empty());
}

TEST_CASE("a template's shape: literals in order, free placeholders without '/' unless {dir} or {path}",
          "[remote][entry]") {
    const auto tpl = OutputTemplate::parse("pages/{input_stem}/{level}_{x}_{y}.bin");
    const std::map<std::string, std::string> fixed = {{"input_stem", "level"}};
    CHECK(template_can_produce(tpl, "/p", "/p/pages/level/2_0_1.bin", fixed));
    CHECK_FALSE(template_can_produce(tpl, "/p", "/p/pages/other/2_0_1.bin", fixed));
    CHECK_FALSE(template_can_produce(tpl, "/p", "/p/pages/level/2_0/1.bin", fixed));
    CHECK_FALSE(template_can_produce(tpl, "/p", "/p/pages/level/2_0_1.bin.x", fixed));
    CHECK(template_can_produce(OutputTemplate::parse("./o/../out/{path}"), "/p", "/p/out/a/b/c.png"));
    CHECK(template_can_produce(OutputTemplate::parse("{name}"), "/p", "/p/a.png"));
    CHECK_FALSE(template_can_produce(OutputTemplate::parse("{name}"), "/p", "/p/d/a.png"));
}
