// The plan's checks on their own: patterns against templates, and the
// promises a pipeline can break before anything runs.
#include "engine/plan.hpp"
#include "load/pattern_overlap.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

using namespace af::base;
using namespace af::steps;
using namespace af::load;
using namespace af::engine;
using namespace af::engine::test;
namespace fs = std::filesystem;

TEST_CASE("an input glob against an output template, decided on the patterns", "[plan][overlap]") {
    auto t = [](const char* s) { return OutputTemplate::parse(s); };
    CHECK(glob_may_match_template("/p/build/**/*", t("/p/build/{dir}/{stem}.dds")));
    CHECK(glob_may_match_template("/p/**/*.png", t("/p/{dir}/{stem}_x.png")));
    CHECK(glob_may_match_template("/p/out/*.png", t("/p/out/{dir}/{stem}.png"))); // {dir} = "." vanishes
    CHECK_FALSE(glob_may_match_template("/p/**/*.png", t("/p/build/pages/{input_stem}/{level}_{x}.bin")));
    CHECK_FALSE(glob_may_match_template("/p/textures/**/*.png", t("/p/build/{dir}/{stem}.png")));
    CHECK_FALSE(glob_may_match_template("/p/src/*.{png,tga}", t("/p/src/{stem}.dds")));
    CHECK(glob_may_match_template("/p/src/*.{png,dds}", t("/p/src/{stem}.dds")));
    CHECK(glob_may_match_template("/p/a/[bc]?/x", t("/p/a/{n}/x")));
    CHECK_FALSE(glob_may_match_template("/p/a/[!b]*/x", t("/p/a/b/x")));
    CHECK(globs_may_overlap("/p/**/x.png", "/p/a/*/x.png"));
    CHECK_FALSE(globs_may_overlap("/p/a/*.png", "/p/a/*/x.png"));
}

namespace {

struct Fixture {
    TestProject t;
    StepTable steps = png_test_steps();
    Pipeline p;
    std::vector<PlanJob> jobs;

    Plan plan(const std::string& yaml, const PlanState& state = {}) {
        t.write("pipeline.yaml", yaml);
        p = load_pipeline(t.path("pipeline.yaml"), {}, steps);
        jobs.clear();
        jobs.resize(p.jobs.size());
        for (size_t i = 0; i < p.jobs.size(); ++i) {
            PlanJob& pj = jobs[i];
            pj.job = &p.jobs[i];
            pj.tpl = OutputTemplate::parse(pj.job->output);
            pj.out_base = (t.root() / pj.tpl.static_prefix()).lexically_normal().native();
            while (pj.out_base.size() > 1 && pj.out_base.back() == '/') pj.out_base.pop_back();
            pj.keeps_names = std::all_of(pj.job->steps.begin(), pj.job->steps.end(),
                                         [](const StepUse& s) { return s.def->keeps_names; });
            pj.late = !pj.job->needs.empty();
            pj.matches = expand_globs(t.root(), pj.job->patterns, pj.job->excludes, {}, &pj.per_pattern);
        }
        return make_plan(jobs, state, t.root());
    }
    std::string errors(const Plan& pl) {
        std::string s;
        for (const auto& e : pl.errors) s += e + "\n";
        return s;
    }
};

} // namespace

TEST_CASE("plan: an output that is one of the job's own inputs is refused", "[plan][promise]") {
    Fixture f;
    f.t.write_png("src/a.png", 2, 2, 1);
    auto pl = f.plan("assetforge: 1\njobs:\n  shrink:\n    inputs: src/*.png\n    steps: [ invert ]\n"
                     "    output: \"src/{stem}.png\"\n");
    CHECK(pl.exit_code == 2);
    CHECK_THAT(f.errors(pl),
               Catch::Contains("shrink") && Catch::Contains("src/a.png") && Catch::Contains("src/{stem}.png"));
}

TEST_CASE("plan: a glob over its own output folder drops its recorded outputs", "[plan][promise]") {
    Fixture f;
    f.t.write_png("a.png", 2, 2, 1);
    f.t.write_png("a_x.png", 2, 2, 1);
    const char* yaml = "assetforge: 1\njobs:\n  x:\n    inputs: \"**/*.png\"\n    steps: [ invert ]\n"
                       "    output: \"{dir}/{stem}_x.png\"\n";
    // Not recorded: a_x.png may be a source, and the plan would write over it.
    CHECK(f.plan(yaml).exit_code == 2);
    PlanState st;
    st.recorded[(f.t.root() / "a_x.png").native()] = {Recorded::Kind::Own, "x", {}, {}};
    auto pl = f.plan(yaml, st);
    CHECK(pl.exit_code == 0);
    REQUIRE(f.jobs[0].matches.size() == 1);
    CHECK(f.jobs[0].matches[0].name == "a.png");
}

TEST_CASE("plan: reading another job's outputs needs a declaration", "[plan][promise]") {
    Fixture f;
    f.t.write_png("src/a.png", 2, 2, 1);
    const std::string base = "assetforge: 1\njobs:\n  tex:\n    inputs: src/*.png\n    steps: [ invert ]\n"
                             "    output: \"build/tex/{name}\"\n";
    // Predicted outputs, even though none exist yet.
    auto pl = f.plan(base + "  pack:\n    inputs: \"build/**/*\"\n    gather: zip\n    output: out/p.zip\n"
                            "    allow_empty: true\n");
    CHECK(pl.exit_code == 2);
    CHECK_THAT(f.errors(pl), Catch::Contains("pack") && Catch::Contains("tex") && Catch::Contains("needs: [tex]"));
    // Declared: fine. Through another job it needs: fine too.
    CHECK(f.plan(base + "  pack:\n    needs: [ tex ]\n    inputs: \"build/**/*\"\n    gather: zip\n"
                        "    output: out/p.zip\n")
              .exit_code == 0);
    CHECK(f.plan(base + "  mid:\n    from: tex\n    steps: [ invert ]\n    output: \"mid/{name}\"\n"
                        "  pack:\n    needs: [ mid ]\n    inputs: \"build/**/*\"\n    gather: zip\n"
                        "    output: out/p.zip\n")
              .exit_code == 0);
    // Names decided only at run time ({part}): decided on the patterns.
    pl = f.plan(base +
                "  parts:\n    inputs: src/*.png\n    steps: [ split ]\n    output: \"gen/{stem}_{part}.png\"\n"
                "  pack:\n    inputs: \"gen/**/*\"\n    gather: zip\n    output: out/p.zip\n    allow_empty: true\n");
    CHECK(pl.exit_code == 2);
    CHECK_THAT(f.errors(pl), Catch::Contains("parts"));
    // An exclude that covers the folder settles it.
    CHECK(f.plan(base + "  pack:\n    inputs: \"**/*\"\n    exclude: [ \"build/**\" ]\n    gather: zip\n"
                        "    output: out/p.zip\n")
              .exit_code == 0);
}

TEST_CASE("plan: two writers of one path, and patterns that match nothing", "[plan][promise]") {
    Fixture f;
    f.t.write_png("src/a.png", 2, 2, 1);
    auto pl = f.plan("assetforge: 1\njobs:\n  alpha:\n    inputs: src/*.png\n    steps: [ invert ]\n"
                     "    output: \"out/{name}\"\n  beta:\n    inputs: src/*.png\n    steps: [ copy ]\n"
                     "    output: \"out/{name}\"\n");
    CHECK(pl.exit_code == 2);
    CHECK_THAT(f.errors(pl), Catch::Contains("alpha") && Catch::Contains("beta") && Catch::Contains("out/a.png"));
    pl = f.plan("assetforge: 1\njobs:\n  j:\n    inputs: [ src/*.png, srcc/*.png ]\n    steps: [ copy ]\n"
                "    output: \"out/{name}\"\n");
    CHECK(pl.exit_code == 1);
    CHECK_THAT(f.errors(pl), Catch::Contains("'srcc/*.png'") && !Catch::Contains("'src/*.png'"));
    CHECK(f.plan("assetforge: 1\njobs:\n  j:\n    inputs: [ src/*.png, srcc/*.png ]\n    allow_empty: true\n"
                 "    steps: [ copy ]\n    output: \"out/{name}\"\n")
              .exit_code == 0);
}

TEST_CASE("plan: outputs of other configurations are nobody's input, a vanished job's that a job reads is a source",
          "[plan][promise]") {
    Fixture f;
    f.t.write_png("src/a.png", 2, 2, 1);
    f.t.write("out/old.txt", "x");
    f.t.write("out/gone.txt", "x");
    PlanState st;
    st.recorded[(f.t.root() / "out/old.txt").native()] = {Recorded::Kind::Foreign, "j", {}, {}};
    st.recorded[(f.t.root() / "out/gone.txt").native()] = {Recorded::Kind::Gone, "renamed", {}, {}};
    auto pl = f.plan("assetforge: 1\njobs:\n  j:\n    inputs: src/*.png\n    steps: [ copy ]\n"
                     "    output: \"out/{name}\"\n  pack:\n    needs: [ j ]\n    inputs: \"out/*\"\n"
                     "    gather: zip\n    output: dist/p.zip\n",
                     st);
    CHECK(pl.exit_code == 0);
    REQUIRE(f.jobs[1].matches.size() == 1);
    CHECK(f.jobs[1].matches[0].path == (f.t.root() / "out/gone.txt").native());
    CHECK(pl.adopted.count((f.t.root() / "out/gone.txt").native()));
    REQUIRE(pl.notes.size() == 2);
    CHECK_THAT(pl.notes[0], Catch::Contains("out/gone.txt") && Catch::Contains("source"));
    CHECK_THAT(pl.notes[1], Catch::Contains("another configuration") && Catch::Contains("clean --orphans"));
}

// The plan compares a pattern only with templates whose fixed folder lies on
// the pattern's own folder's path or below it: above, below and in the same
// folder are all found; a sibling sharing a name prefix ("out/a-x" beside
// "out/a") is not a candidate, and cannot match either.
TEST_CASE("plan: patterns meet the templates above, below and beside their folder", "[plan][promise]") {
    Fixture f;
    f.t.write_png("src/a.png", 2, 2, 1);
    f.t.write_png("src/deep/b.png", 2, 2, 2);
    const std::string head = "assetforge: 1\njobs:\n  gen:\n    inputs: \"src/**/*.png\"\n    steps: [ invert ]\n"
                             "    output: \"OUT\"\n  reader:\n    inputs: \"IN\"\n    allow_empty: true\n"
                             "    steps: [ copy ]\n    output: \"elsewhere/{name}\"\n";
    auto plan = [&](const std::string& out, const std::string& in) {
        std::string y = head;
        y.replace(y.find("OUT"), 3, out);
        y.replace(y.find("IN"), 2, in);
        return f.plan(y);
    };
    CHECK(plan("out/a/{stem}.png", "out/**/*.png").exit_code == 2);       // template below the pattern's folder
    CHECK(plan("out/{stem}.png", "out/*.png").exit_code == 2);            // the same folder
    CHECK(plan("out/{dir}/{stem}.png", "out/deep/*.png").exit_code == 2); // template above it
    CHECK(plan("out/a-x/{stem}.png", "out/a/**/*.png").exit_code == 0);   // a sibling with a common prefix
    CHECK(plan("out/b/{stem}.png", "out/{a,b}/*.png").exit_code == 2);    // through a brace alternative
}

TEST_CASE("plan: outputs over inputs are one line per job with file:line and a count, an empty glob names its line",
          "[plan][promise]") {
    Fixture f;
    for (int i = 0; i < 5; ++i) f.t.write_png("src/t" + std::to_string(i) + ".png", 2, 2, 1);
    auto pl =
        f.plan("assetforge: 1\njobs:\n  shrink:\n    inputs: src/*.png\n    steps: [ invert ]\n"
               "    output: \"src/{stem}.png\"\n  none:\n    inputs: nothing/*.png\n    output: \"o/{stem}.png\"\n");
    CHECK(pl.exit_code == 2);
    size_t over = 0;
    for (const auto& e : pl.errors) over += e.find("own inputs") != std::string::npos;
    CHECK(over == 1);
    const std::string all = f.errors(pl);
    CHECK_THAT(all,
               Catch::Contains("pipeline.yaml:6:13: job 'shrink'") && Catch::Contains("(and 4 more of its outputs)"));
    CHECK_THAT(all, Catch::Matches(
                        "(.|\n)*pipeline\\.yaml:[78]:[0-9]+: job 'none': the input pattern 'nothing/\\*\\.png' matches "
                        "no file(.|\n)*"));
}
