// The status printer alone: counts of finished actions, the failures listed
// in order, the one-line summary, --quiet and --warnings-as-errors.
#include "report/build_status.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace af::base;
using namespace af::load;
using namespace af::report;

namespace {

ActionResult result(const std::string& job, const std::string& input, ActionStatus status) {
    ActionResult r;
    r.job = job;
    r.input = input;
    r.status = status;
    return r;
}

struct Printer {
    BuildOptions opt;
    std::ostringstream out, err;
    Pipeline p;
    explicit Printer(BuildOptions o = {}) : opt(std::move(o)) { opt.progress = 0; }
};

} // namespace

TEST_CASE("the status printer counts actions and prints one summary line") {
    Printer t;
    BuildStatus s(t.opt, t.out, t.err);
    s.add(result("a", "x.png", ActionStatus::Built));
    s.add(result("a", "y.png", ActionStatus::Built));
    s.add(result("a", "z.png", ActionStatus::UpToDate));
    CHECK(s.summary().built == 2);
    CHECK(s.summary().up_to_date == 1);
    s.print_summary(t.p, 1.234);
    CHECK(t.out.str().find("2 built, 1 up to date, 0 failed, 0 removed (1.23s)\n") != std::string::npos);
    CHECK(t.err.str().empty());
    CHECK(s.summary().exit_code() == 0);
}

TEST_CASE("the status printer lists failures sorted, on the error stream, and fails the exit code") {
    Printer t;
    BuildStatus s(t.opt, t.out, t.err);
    auto b = result("b", "2.png", ActionStatus::Failed);
    b.failed_step = "invert";
    b.error = "bad pixels";
    auto a = result("a", "1.png", ActionStatus::Failed);
    a.failed_step = "read";
    a.error = "truncated";
    s.add(b);
    s.add(a);
    s.print_summary(t.p, 0);
    CHECK(t.err.str() == "2 action(s) failed:\n"
                         "  a: 1.png: step 'read': truncated\n"
                         "  b: 2.png: step 'invert': bad pixels\n");
    CHECK(t.out.str().find("0 built, 0 up to date, 2 failed, 0 removed") != std::string::npos);
    CHECK(s.summary().exit_code() == 1);
}

TEST_CASE("the status printer with --quiet prints failures only, --warnings-as-errors fails on warnings") {
    BuildOptions o;
    o.quiet = true;
    o.warnings_as_errors = true;
    Printer t(o);
    BuildStatus s(t.opt, t.out, t.err);
    auto r = result("a", "x.png", ActionStatus::Built);
    r.results.warnings.push_back("alpha discarded");
    s.add(r);
    s.print_summary(t.p, 0);
    CHECK(t.out.str().empty());
    CHECK(t.err.str().find("error: a: x.png: alpha discarded\n") != std::string::npos);
    CHECK(t.err.str().find("1 warning(s) treated as errors") != std::string::npos);
    CHECK(s.summary().exit_code() == 1);
}
