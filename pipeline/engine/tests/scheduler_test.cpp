// The scheduler against a fake executor on an in-memory disk: each action
// reads its input file and writes "<job>(<content>)" under /out/<job>/, so a
// test sees from the disk alone what ran, in which order, and on what.
#include "engine/disk.hpp"
#include "engine/scheduler.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

using namespace af::base;
using namespace af::load;
using namespace af::report;
using namespace af::engine;

namespace {

struct Graph {
    std::vector<Job> jobs;
    std::vector<JobRun> runs;

    // name, from, needs, gather?
    void job(std::string name, std::vector<std::string> from = {}, std::vector<std::string> needs = {},
             bool gather = false) {
        Job j;
        j.name = std::move(name);
        j.from = std::move(from);
        j.needs = std::move(needs);
        if (gather) j.gather.name = "concat";
        jobs.push_back(std::move(j));
    }
    void wire() {
        runs.resize(jobs.size());
        for (size_t i = 0; i < jobs.size(); ++i) {
            runs[i].job = &jobs[i];
            runs[i].out_base = "/out/" + jobs[i].name;
        }
        link_jobs(runs);
    }
};

Input disk_input(const std::string& abs, const std::string& name) {
    Input in;
    in.abs = in.rel = abs;
    in.name = name;
    in.origin = abs;
    return in;
}

class FakeExecutor : public ActionExecutor {
  public:
    explicit FakeExecutor(MemoryDisk& disk) : disk_(disk) {}

    // Inputs of a job with globs: "/src/<name>" files present on the disk.
    std::map<std::string, std::vector<std::string>> globs;
    std::set<std::string> failing; // "job:name" fails
    std::set<std::string> stale;   // "job:name" must run (the rest are up to date when checked)
    bool all_stale = true;

    ActionOutcome execute(JobRun& j, std::vector<Input> inputs, bool check_only) override {
        ActionOutcome d;
        d.res.job = j.job->name;
        d.res.input = j.job->is_gather() ? "*" : inputs.at(0).rel;
        const std::string id = j.job->name + ":" + (j.job->is_gather() ? "*" : inputs.at(0).name);
        if (check_only && !all_stale && !stale.count(id)) {
            d.res.status = ActionStatus::UpToDate;
            log(id + " up-to-date");
            return d;
        }
        if (check_only) {
            d.must_run = true;
            d.pending = std::move(inputs);
            return d;
        }
        if (failing.count(id)) {
            std::this_thread::sleep_for(std::chrono::milliseconds(5)); // a failure takes a while to show
            d.res.status = ActionStatus::Failed;
            d.failed = true;
            log(id + " failed");
            return d;
        }
        std::string body;
        for (const auto& in : inputs) {
            auto text = disk_.text(in.abs); // upstream outputs must be on the disk by now
            if (!text) {
                // Not REQUIRE: Catch's assertions are not for worker threads.
                log("missing " + in.abs);
                d.res.status = ActionStatus::Failed;
                d.failed = true;
                return d;
            }
            body += *text;
        }
        const std::string out_name = j.job->is_gather() ? "all" : inputs.at(0).name;
        const std::string out = "/out/" + j.job->name + "/" + out_name;
        disk_.put(out, j.job->name + "(" + body + ")");
        Input o = disk_input(out, "");
        o.origin = j.job->is_gather() ? "*" : inputs.at(0).origin;
        d.produced.push_back(o);
        d.res.status = ActionStatus::Built;
        log(id + " built");
        return d;
    }

    std::vector<Input> late_inputs(JobRun& j) override {
        std::vector<Input> v;
        for (const auto& n : globs[j.job->name]) {
            // A `needs` job's glob over another job's outputs: they must all exist now.
            if (!disk_.text(n)) throw std::runtime_error(n + " matched nothing");
            v.push_back(disk_input(n, n.substr(n.rfind('/') + 1)));
        }
        return v;
    }

    void job_complete(JobRun& j) override { log(j.job->name + " complete"); }

    std::vector<std::string> events() {
        std::lock_guard lk(mu_);
        return events_;
    }
    size_t missing() {
        auto ev = events();
        return size_t(std::count_if(ev.begin(), ev.end(), [](auto& e) { return e.rfind("missing ", 0) == 0; }));
    }
    size_t index(const std::string& e) {
        auto ev = events();
        return size_t(std::find(ev.begin(), ev.end(), e) - ev.begin());
    }

  private:
    void log(std::string e) {
        std::lock_guard lk(mu_);
        events_.push_back(std::move(e));
    }
    MemoryDisk& disk_;
    std::mutex mu_;
    std::vector<std::string> events_;
};

struct Run {
    BuildOptions opt;
    std::ostringstream out, err;
    std::optional<BuildStatus> status;
    Run() {
        opt.quiet = true;
        status.emplace(opt, out, err);
    }
};

void seed(Graph& g, FakeExecutor& ex, MemoryDisk& disk, const std::string& job, int n) {
    for (int i = 0; i < n; ++i) {
        std::string p = "/src/" + std::to_string(i) + ".txt";
        disk.put(p, std::to_string(i));
        ex.globs[job].push_back(p);
    }
    for (auto& r : g.runs)
        if (r.job->name == job) {
            for (const auto& p : ex.globs[job]) r.prefetched.push_back(disk_input(p, p.substr(5)));
            r.has_prefetched = true;
        }
}

// decode → encode (file by file) → zip (a gather of all encode's outputs).
void decode_encode_zip(Graph& g) {
    g.job("decode");
    g.job("encode", {"decode"});
    g.job("zip", {"encode"}, {}, true);
    g.wire();
}

} // namespace

TEST_CASE("scheduler: outputs flow file by file into `from` jobs, and a gather runs once on all of them") {
    MemoryDisk disk;
    Graph g;
    decode_encode_zip(g);
    FakeExecutor ex(disk);
    seed(g, ex, disk, "decode", 40);
    Run r;
    Scheduler s(g.runs, ex, *r.status, {});
    s.run();
    CHECK(ex.missing() == 0);
    CHECK(r.status->summary().built == 81);
    auto all = disk.text("/out/zip/all");
    REQUIRE(all);
    for (int i = 0; i < 40; ++i) CHECK(all->find("encode(decode(" + std::to_string(i) + "))") != std::string::npos);
    // Every job completes once, after its last action, and in dependency order.
    CHECK(ex.index("decode complete") < ex.index("encode complete"));
    CHECK(ex.index("encode complete") < ex.index("zip:* built"));
    CHECK(ex.index("zip:* built") < ex.index("zip complete"));
    auto ev = ex.events();
    CHECK(std::count(ev.begin(), ev.end(), "zip:* built") == 1);
}

TEST_CASE("scheduler: a `needs` job expands its inputs only after the jobs it needs are complete") {
    MemoryDisk disk;
    Graph g;
    g.job("make");
    g.job("index", {}, {"make"});
    g.wire();
    FakeExecutor ex(disk);
    seed(g, ex, disk, "make", 20);
    for (int i = 0; i < 20; ++i) ex.globs["index"].push_back("/out/make/" + std::to_string(i) + ".txt");
    Run r;
    Scheduler s(g.runs, ex, *r.status, {});
    s.run(); // late_inputs throws if any of make's outputs were missing
    CHECK(r.status->summary().failed == 0);
    CHECK(r.status->summary().built == 40);
    CHECK(ex.index("make complete") < ex.index("index complete"));
}

TEST_CASE("scheduler: a failure keeps the batch going, and the gather after it does not run") {
    MemoryDisk disk;
    Graph g;
    g.job("decode");
    g.job("zip", {"decode"}, {}, true);
    g.wire();
    FakeExecutor ex(disk);
    seed(g, ex, disk, "decode", 10);
    ex.failing.insert("decode:3.txt");
    Run r;
    Scheduler s(g.runs, ex, *r.status, {});
    s.run();
    CHECK(ex.missing() == 0);
    CHECK(r.status->summary().built == 9);
    CHECK(r.status->summary().failed == 1);
    CHECK(r.status->summary().not_run == 1); // the zip
    CHECK_FALSE(disk.text("/out/zip/all"));
}

TEST_CASE("scheduler: --fail-fast starts nothing after the first failure") {
    MemoryDisk disk;
    Graph g;
    g.job("decode");
    g.wire();
    FakeExecutor ex(disk);
    seed(g, ex, disk, "decode", 200);
    for (int i = 0; i < 200; ++i) ex.failing.insert("decode:" + std::to_string(i) + ".txt");
    Run r;
    SchedulerOptions so;
    so.fail_fast = true;
    Scheduler s(g.runs, ex, *r.status, so);
    s.run();
    CHECK(ex.missing() == 0);
    // Only actions already running when the first failed may still fail.
    CHECK(r.status->summary().failed >= 1);
    CHECK(r.status->summary().failed <= 8);
    CHECK(r.status->summary().failed + r.status->summary().not_run == 200);
}

TEST_CASE("scheduler: up-to-date actions are counted, not run, and still feed their downstream") {
    MemoryDisk disk;
    Graph g;
    g.job("decode");
    g.job("encode", {"decode"});
    g.wire();
    FakeExecutor ex(disk);
    seed(g, ex, disk, "decode", 5);
    for (int i = 0; i < 5; ++i)
        disk.put("/out/decode/" + std::to_string(i) + ".txt", "decode(" + std::to_string(i) + ")");
    ex.all_stale = false;
    ex.stale = {"encode:2.txt"};
    // An up-to-date decode hands its recorded output on.
    struct Forwarding : FakeExecutor {
        using FakeExecutor::FakeExecutor;
        ActionOutcome execute(JobRun& j, std::vector<Input> in, bool check_only) override {
            std::string name = in.at(0).name, origin = in.at(0).origin;
            auto d = FakeExecutor::execute(j, std::move(in), check_only);
            if (d.res.status == ActionStatus::UpToDate && j.job->name == "decode") {
                Input o = disk_input("/out/decode/" + name, "");
                o.origin = origin;
                d.produced.push_back(o);
            }
            return d;
        }
    } fwd(disk);
    fwd.globs = ex.globs;
    fwd.all_stale = false;
    fwd.stale = ex.stale;
    Run r;
    Scheduler s(g.runs, fwd, *r.status, {});
    s.run();
    CHECK(fwd.missing() == 0);
    CHECK(r.status->summary().up_to_date == 9);
    CHECK(r.status->summary().built == 1);
    CHECK(disk.text("/out/encode/2.txt") == "encode(decode(2))");
}

TEST_CASE("scheduler: a shard runs its own chains whole, skips the rest and every gather") {
    MemoryDisk disk;
    Graph g;
    decode_encode_zip(g);
    FakeExecutor ex(disk);
    seed(g, ex, disk, "decode", 30);
    Run r;
    SchedulerOptions so;
    // Shard by the source file: even-numbered sources are this shard's.
    so.in_shard = [](const JobRun&, const Input& in) { return std::stoi(in.origin.substr(5)) % 2 == 0; };
    Scheduler s(g.runs, ex, *r.status, so);
    s.run();
    CHECK(ex.missing() == 0);
    CHECK(r.status->summary().built == 30);   // 15 decode + 15 encode
    CHECK(r.status->summary().skipped == 16); // 15 decode + the zip
    for (int i = 0; i < 30; ++i)
        CHECK(disk.text("/out/encode/" + std::to_string(i) + ".txt").has_value() == (i % 2 == 0));
    CHECK_FALSE(disk.text("/out/zip/all"));
}

TEST_CASE("scheduler: many jobs in a diamond on many threads finish every action exactly once") {
    MemoryDisk disk;
    Graph g;
    g.job("a");
    g.job("b", {"a"});
    g.job("c", {"a"});
    g.job("d", {"b", "c"}, {}, true);
    g.wire();
    FakeExecutor ex(disk);
    seed(g, ex, disk, "a", 300);
    Run r;
    Scheduler s(g.runs, ex, *r.status, {});
    s.run();
    CHECK(ex.missing() == 0);
    CHECK(r.status->summary().built == 901);
    auto all = disk.text("/out/d/all");
    REQUIRE(all);
    size_t bs = 0, cs = 0;
    for (size_t p = 0; (p = all->find("b(a(", p)) != std::string::npos; ++p) ++bs;
    for (size_t p = 0; (p = all->find("c(a(", p)) != std::string::npos; ++p) ++cs;
    CHECK(bs == 300);
    CHECK(cs == 300);
}

TEST_CASE("scheduler: the pictures of one texture's surfaces are one action, in name order", "[scheduler]") {
    auto from_upstream = [](const std::string& name) {
        Input in = disk_input("/out/up/" + name, name);
        in.hash = af::Hash128{};
        return in;
    };
    Input globbed = disk_input("/src/arr.layer1.png", "arr.layer1.png");
    globbed.set = "arr.png", globbed.set_rel = "/src/arr.png";
    Input globbed0 = disk_input("/src/arr.layer0.png", "arr.layer0.png");
    globbed0.set = "arr.png", globbed0.set_rel = "/src/arr.png";
    std::vector<Input> in = {from_upstream("sky.face3.png"), globbed, disk_input("/src/plain.png", "plain.png"),
                             from_upstream("sky.face0.png"), globbed0};
    auto actions = Scheduler::action_inputs(in, true);
    REQUIRE(actions.size() == 3);
    REQUIRE(actions[0].size() == 2);
    CHECK(actions[0][0].name == "sky.face0.png"); // sorted: the key does not follow the order they came in
    CHECK(actions[0][0].set == "sky.png");
    CHECK(actions[0][0].set_rel == "/out/up/sky.png");
    REQUIRE(actions[1].size() == 2);
    CHECK(actions[1][0].name == "arr.layer0.png");
    CHECK(actions[2].size() == 1);
    // A job whose steps take no texture: every file its own action (what upstream wrote is not marked).
    in.erase(in.begin() + 4), in.erase(in.begin() + 1);
    CHECK(Scheduler::action_inputs(in, false).size() == 3);
}

// A watch's rebuild of one saved file in a tree that feeds a gather: every action is checked for the gather, and
// the saved one's output must not wait for all those checks.
TEST_CASE("scheduler: run_at_once starts a stale action before the first pass has checked the rest") {
    for (const bool at_once : {false, true}) {
        CAPTURE(at_once);
        MemoryDisk disk;
        Graph g;
        g.job("decode");
        g.wire();
        struct SlowChecks : FakeExecutor {
            using FakeExecutor::FakeExecutor;
            ActionOutcome execute(JobRun& j, std::vector<Input> in, bool check_only) override {
                if (check_only && in.at(0).name != "0.txt") std::this_thread::sleep_for(std::chrono::milliseconds(1));
                return FakeExecutor::execute(j, std::move(in), check_only);
            }
        } ex(disk);
        seed(g, ex, disk, "decode", 200);
        ex.all_stale = false;
        ex.stale = {"decode:0.txt"};
        Run r;
        SchedulerOptions so;
        so.run_at_once = at_once;
        Scheduler s(g.runs, ex, *r.status, so);
        s.run();
        CHECK(r.status->summary().built == 1);
        CHECK(r.status->summary().up_to_date == 199);
        size_t checked_before = 0;
        for (const auto& e : ex.events()) {
            if (e == "decode:0.txt built") break;
            checked_before += e.ends_with("up-to-date");
        }
        if (at_once)
            CHECK(checked_before < 100);
        else
            CHECK(checked_before == 199);
    }
}
