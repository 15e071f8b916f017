// The progress line's ETA weighs what is left by input bytes: a big texture
// still to come is not estimated as a small one.
#include "report/progress.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

using namespace af::report;

namespace {

// The last "ETA XmYYs" drawn, in seconds; -1 when none was.
int last_eta(const std::string& out) {
    static const std::regex eta("ETA ([0-9]+)m([0-9]{2})s");
    int secs = -1;
    for (auto it = std::sregex_iterator(out.begin(), out.end(), eta); it != std::sregex_iterator(); ++it)
        secs = std::stoi((*it)[1]) * 60 + std::stoi((*it)[2]);
    return secs;
}

// Runs one action of `small` bytes for ~200 ms among `total` expected whose
// inputs are `known_bytes` in all, then reads the ETA.
int eta_after_one(size_t total, uint64_t known_bytes, size_t known, uint64_t small) {
    std::ostringstream out;
    {
        Progress p(out, Progress::Mode::Terminal);
        p.add_total(total, known_bytes, known);
        p.started("job: small.png", small);
        std::this_thread::sleep_for(std::chrono::milliseconds(200));
        p.finished("job: small.png", true, false);
        p.line("drawn"); // forces a redraw after the finish
    }
    return last_eta(out.str());
}

} // namespace

TEST_CASE("progress: the ETA is weighed by the bytes still to come") {
    // Two actions: a 1 KiB one done in ~0.2 s, a 1 MiB one left. By count the ETA would be ~0 s; by bytes ~200 s.
    const int big_left = eta_after_one(2, 1024 + (1 << 20), 2, 1024);
    CHECK(big_left >= 60);
    // The same two actions, both small: a fraction of a second left.
    const int small_left = eta_after_one(2, 2048, 2, 1024);
    CHECK(small_left >= 0);
    CHECK(small_left <= 2);
    // Sizes not known: each remaining action counts as the mean finished one (here ~0.2 s each).
    const int unknown = eta_after_one(11, 0, 0, 1024);
    CHECK(unknown >= 1);
    CHECK(unknown <= 6);
}

TEST_CASE("progress: done never shows above the total") {
    std::ostringstream out;
    {
        Progress p(out, Progress::Mode::Plain);
        p.add_total(1);
        for (const char* f : {"j: a", "j: b", "j: c"}) {
            p.started(f, 10);
            p.finished(f, true, false);
        }
    }
    CHECK_THAT(out.str(), Catch::Contains("[3/3]"));
    CHECK_THAT(out.str(), !Catch::Contains("[3/1]") && !Catch::Contains("[2/1]"));
}
