// The commit rules on an in-memory disk: nothing is written over an input or
// an edit, an action that may not write one output writes none, the same
// bytes are not rewritten, and stale outputs go only while unedited.
#include "engine/disk.hpp"
#include "engine/output_commit.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace af::base;
using namespace af::load;
using namespace af::report;
using namespace af::engine;

namespace {

ActionOutput out(const std::string& rel, const std::string& text) {
    ActionOutput o;
    o.rel = rel;
    o.abs = "/p/" + rel;
    o.encoded.assign(text.begin(), text.end());
    o.hash = af::hash_bytes(o.encoded);
    return o;
}

struct Fixture {
    test::TestProject state_dir; // the state store is the other seam: a real one, in a temp folder
    MemoryDisk disk;
    Job job, source_job;
    std::vector<PlanJob> plan_jobs;
    PlanState plan_state;
    Plan plan;
    BuildOptions opt;
    std::ostringstream o, e;
    BuildStatus status{opt, o, e};
    StateStore store{state_dir.path(".assetforge")};
    TraceLog trace;
    std::optional<OutputCommit> commit;

    explicit Fixture(bool overwrite_edited = false) {
        job.name = "encode";
        job.output = "out/{stem}.dds";
        source_job.name = "decode";
        source_job.patterns = {"src/*.png"};
        plan_jobs.resize(1);
        plan_jobs[0].job = &source_job;
        make(overwrite_edited);
    }
    void make(bool overwrite_edited) {
        commit.emplace(disk, store, ProjectPaths{"/p"}, "/p", plan, plan_jobs, plan_state, status,
                       OutputCommit::Options{overwrite_edited, false});
    }
    OutputCommit::Committed put(std::vector<ActionOutput> v, const std::string& who = "encode: src/a.png") {
        return commit->commit(job, v, who, trace, "src/a.png");
    }
};

} // namespace

TEST_CASE("commit: writes new outputs atomically and does not rewrite the same bytes") {
    Fixture f;
    auto c = f.put({out("out/a.dds", "A1"), out("out/a_n.dds", "N1")});
    CHECK(c.written.size() == 2);
    CHECK(f.disk.text("/p/out/a.dds") == "A1");
    CHECK(f.disk.writes() == 2);
    f.make(false); // the next build
    auto again = f.put({out("out/a.dds", "A1"), out("out/a_n.dds", "N1")});
    CHECK(f.disk.writes() == 2);
    CHECK(again.written[0].hash == c.written[0].hash);
}

TEST_CASE("commit: a file the build did not write is not replaced, and then no output is written") {
    Fixture f;
    f.disk.put("/p/out/a_n.dds", "mine");
    CHECK_THROWS_WITH(f.put({out("out/a.dds", "A1"), out("out/a_n.dds", "N1")}),
                      Catch::Contains("exists but the build did not write it"));
    CHECK_FALSE(f.disk.text("/p/out/a.dds"));
    CHECK(f.disk.text("/p/out/a_n.dds") == "mine");
}

TEST_CASE("commit: never over an input of the build, even with --overwrite-edited") {
    Fixture f(true);
    f.disk.put("/p/src/a.png", "source");
    CHECK_THROWS_WITH(f.put({out("src/a.png", "X")}), Catch::Contains("is an input of this build"));
    CHECK(f.disk.text("/p/src/a.png") == "source");
}

TEST_CASE("commit: an edit of an output is kept unless --overwrite-edited, keep_edits keeps it quietly") {
    Fixture f;
    f.put({out("out/a.dds", "A1")});
    f.disk.put("/p/out/a.dds", "edited");
    CHECK_THROWS_WITH(f.put({out("out/a.dds", "A2")}), Catch::Contains("was edited since the build wrote it"));
    CHECK(f.disk.text("/p/out/a.dds") == "edited");
    f.job.keep_edits = true;
    auto kept = f.put({out("out/a.dds", "A2")});
    CHECK(kept.kept_edits == 1);
    CHECK(f.disk.text("/p/out/a.dds") == "edited");
    f.job.keep_edits = false;
    f.make(true);
    f.put({out("out/a.dds", "A2")});
    CHECK(f.disk.text("/p/out/a.dds") == "A2");
}

TEST_CASE("commit: two actions may not write one path") {
    Fixture f;
    f.put({out("out/a.dds", "A1")}, "encode: src/a.png");
    CHECK_THROWS_WITH(f.put({out("out/a.dds", "B1")}, "encode: src/b.png"),
                      Catch::Contains("also produced by encode: src/a.png"));
    CHECK(f.disk.text("/p/out/a.dds") == "A1");
}

TEST_CASE("commit: a stale output goes while it holds what the build wrote, an edited one stays") {
    Fixture f;
    auto c = f.put({out("out/a.dds", "A1"), out("out/b.dds", "B1")}, "encode: x");
    f.make(false); // a later build: nothing claims these paths
    f.disk.put("/p/out/b.dds", "edited");
    f.commit->remove_output(c.written[0]);
    f.commit->remove_output(c.written[1]);
    CHECK_FALSE(f.disk.text("/p/out/a.dds"));
    CHECK(f.disk.text("/p/out/b.dds") == "edited");
}
