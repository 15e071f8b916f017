// Crash consistency of `assetforge build`: the process is SIGKILLed at random
// points (seeded) over and over, and after every kill each output present must
// be byte-identical to what a clean build writes at that path (so complete and
// decodable), temporaries must never stand under an output's name or be taken
// as inputs, and a normal build must then converge to exactly the outputs and
// state records of a clean build, with the build after it doing nothing.
//
// The seed is AF_CRASH_SEED (default below). The random draws repeat exactly;
// the delays they give also adapt to the machine's build times, so where the
// kills land in a build differs from machine to machine (the warning at the
// end says how many landed and how many builds beat their kill).
#include "assetforge/atomic_file.hpp"
#include "assetforge/picture.hpp"
#include "core/content_hash.hpp"
#include "core/png_io.hpp"
#include "engine/state_store.hpp"

#include "cli_run.hpp"

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <set>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

namespace {

constexpr uint64_t kDefaultSeed = 0x5afe'c0de'2026;
#if defined(AF_ASAN)
// Instrumented, the 50 kills took 87 s (6.5 s in a release build); the consistency is held to all 50 there, and here
// the kills are for the memory errors of interrupted and resumed builds.
constexpr int kKills = 15;
#else
constexpr int kKills = 50;
#endif
constexpr int kKillsPerRound = 5; // then the round's build is run to the end and compared

// Three jobs: an encode per input (real codec work, long enough to be caught
// mid-way), a job fed file by file from it, and a gather whose inputs are a
// glob over the first job's output folder, where killed builds leave their
// temporaries: the zip only matches if none of them is taken for an input.
const char* kPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/**/*.png"
    steps: [ mips, { encode: { format: bc7, quality: fast } } ]
    output: "build/dds/{dir}/{stem}.dds"
  previews:
    from: textures
    steps: [ decode ]
    output: "build/preview/{dir}/{stem}.png"
  package:
    needs: [ textures ]
    inputs: "build/dds/**/*"
    gather: { zip: { manifest: manifest.json } }
    output: "build/mod.zip"
)";

using af::test::slurp;

void write_input(const fs::path& p, uint32_t w, uint32_t h, uint32_t seed) {
    af::Texture img = af::rgba8_picture(w, h);
    std::mt19937 rng(seed);
    for (uint32_t y = 0; y < h; ++y)
        for (uint32_t x = 0; x < w; ++x) {
            uint8_t* px = &img.data[(size_t(y) * w + x) * 4];
            // Gradients plus noise: the encoder has real choices to make.
            px[0] = uint8_t(x * 255 / w + rng() % 24);
            px[1] = uint8_t(y * 255 / h + rng() % 24);
            px[2] = uint8_t((x ^ y) * seed + rng() % 16);
            px[3] = uint8_t(seed % 2 ? 255 : 128 + (x + y) % 128);
        }
    fs::create_directories(p.parent_path());
    af::write_png_file(p, img);
}

// Input set A, or B = A with two inputs edited, one removed and one added:
// B's rounds start from A's outputs and are killed mid-way through an
// incremental rebuild (re-encodes, a stale removal, a new zip).
void write_inputs(const fs::path& root, bool set_b) {
    fs::remove_all(root / "src");
    for (uint32_t i = 0; i < 10; ++i) {
        if (set_b && i == 3) continue;
        uint32_t seed = (set_b && (i == 5 || i == 9)) ? 1000 + i : i;
        std::string dir = i % 3 == 0 ? "src/" : i % 3 == 1 ? "src/walls/" : "src/props/metal/";
        write_input(root / (dir + "t" + std::to_string(i) + ".png"), 128, 128 >> (i % 2), seed);
    }
    if (set_b) write_input(root / "src/walls/new.png", 128, 128, 77);
}

struct Tree {
    std::map<std::string, std::string> outputs; // below build/, relative to the root
    std::vector<std::string> temporaries;
};

Tree scan(const fs::path& root) {
    Tree t;
    if (!fs::exists(root / "build")) return t;
    for (const auto& e : fs::recursive_directory_iterator(root / "build")) {
        if (!e.is_regular_file()) continue;
        std::string rel = e.path().lexically_relative(root).generic_string();
        if (e.path().filename().string().rfind(af::sdk::kTempPrefix, 0) == 0)
            t.temporaries.push_back(rel);
        else
            t.outputs[rel] = slurp(e.path());
    }
    return t;
}

// The action records, minus what legitimately differs between runs (durations).
std::set<std::string> state_records(const fs::path& root) {
    af::engine::StateStore store(root / ".assetforge");
    std::set<std::string> v;
    for (const auto& r : store.all_actions()) {
        std::string s = r.job + " | " + r.input + " | " + r.key.hex() + " | " + r.input_hash.hex() + " | " +
                        r.params_hash.hex() + " | " + r.tools + " | " +
                        (r.status == af::engine::ActionRecord::Status::Failed ? "failed" : "built") + " | " + r.error;
        for (const auto& o : r.outputs) s += " | " + o.path + "=" + o.hash.hex();
        v.insert(s);
    }
    return v;
}

struct Spawned {
    pid_t pid;
    Clock::time_point started;
};

Spawned spawn_build(const fs::path& root, const std::string& report = "") {
    std::string exe = AF_EXE, yaml = (root / "pipeline.yaml").string(), log = (root / "build.log").string();
    std::vector<std::string> args = {exe, "build", yaml, "-j", "2", "--quiet"};
    if (!report.empty()) args.insert(args.end(), {"--report", report});
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    Spawned s{};
    int rc = posix_spawn(&s.pid, exe.c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    REQUIRE(rc == 0);
    s.started = Clock::now();
    return s;
}

// Exit code of a build run to the end; the log on failure.
int finish(const Spawned& s, const fs::path& root) {
    int status = 0;
    waitpid(s.pid, &status, 0);
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    if (code != 0) FAIL_CHECK("assetforge build exited with " << code << ":\n" << slurp(root / "build.log"));
    return code;
}

// Kills the build `delay` after it started. True when the kill landed on a
// running build; false when the build had already finished (successfully).
bool kill_after(const Spawned& s, std::chrono::microseconds delay, const fs::path& root) {
    std::this_thread::sleep_until(s.started + delay);
    int status = 0;
    if (waitpid(s.pid, &status, WNOHANG) == s.pid) {
        CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0));
        if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0)) FAIL_CHECK(slurp(root / "build.log"));
        return false;
    }
    kill(s.pid, SIGKILL);
    waitpid(s.pid, &status, 0);
    if (WIFSIGNALED(status)) return true;
    CHECK((WIFEXITED(status) && WEXITSTATUS(status) == 0)); // finished between the check and the kill
    return false;
}

struct Reference {
    Tree tree;
    std::set<std::string> state;
    double seconds = 0;
};

Reference clean_build(const fs::path& root, bool set_b) {
    fs::create_directories(root);
    write_inputs(root, set_b);
    af::sdk::write_file_atomic(root / "pipeline.yaml", std::string(kPipeline));
    Reference r;
    auto s = spawn_build(root);
    REQUIRE(finish(s, root) == 0);
    r.seconds = std::chrono::duration<double>(Clock::now() - s.started).count();
    r.tree = scan(root);
    r.state = state_records(root);
    REQUIRE(r.tree.temporaries.empty());
    // The reference itself decodes: every preview PNG is a full image, and
    // every texture has its preview and its zip entry.
    size_t previews = 0, textures = 0;
    for (const auto& [rel, bytes] : r.tree.outputs) {
        if (rel.rfind("build/preview/", 0) == 0) {
            auto img = af::decode_png(std::vector<uint8_t>(bytes.begin(), bytes.end()), rel);
            CHECK(img.desc.width == 128);
            ++previews;
        } else if (rel.rfind("build/dds/", 0) == 0) {
            ++textures;
            CHECK(r.tree.outputs.at("build/mod.zip").find(rel.substr(10)) != std::string::npos);
        }
    }
    CHECK(previews == 10u);
    CHECK(textures == previews);
    return r;
}

// Mid-crash invariant: every output present holds, byte for byte, what one
// of the clean builds writes at that path.
void check_complete(const fs::path& root, const std::vector<const Reference*>& allowed, const std::string& when) {
    Tree now = scan(root);
    for (const auto& [rel, bytes] : now.outputs) {
        bool known = false, matches = false;
        for (const Reference* ref : allowed) {
            auto it = ref->tree.outputs.find(rel);
            if (it == ref->tree.outputs.end()) continue;
            known = true;
            matches = matches || it->second == bytes;
        }
        INFO(when << ": " << rel << " (" << bytes.size() << " bytes)");
        CHECK(known);   // no stray file under an output's name
        CHECK(matches); // complete: the same bytes a clean build writes
    }
}

// After the kills: one normal build converges to the reference, exactly.
void check_converges(const fs::path& root, const Reference& ref, const std::string& when) {
    auto s = spawn_build(root);
    REQUIRE(finish(s, root) == 0);
    Tree now = scan(root);
    INFO(when);
    CHECK(now.outputs.size() == ref.tree.outputs.size());
    for (const auto& [rel, bytes] : ref.tree.outputs) {
        INFO(rel);
        auto it = now.outputs.find(rel);
        REQUIRE(it != now.outputs.end());
        CHECK(it->second == bytes);
    }
    for (const auto& [rel, _] : now.outputs) {
        INFO("unexpected output " << rel);
        CHECK(ref.tree.outputs.count(rel) == 1);
    }
    CHECK(state_records(root) == ref.state);
    // The killed builds' temporaries are gone too: the tree is the clean one.
    for (const auto& tmp : now.temporaries) FAIL_CHECK("abandoned temporary left behind: " << tmp);
    // And the build after that has nothing to do.
    std::string report = (root / "report.json").string();
    auto again = spawn_build(root, report);
    REQUIRE(finish(again, root) == 0);
    auto j = nlohmann::json::parse(slurp(report));
    CHECK(j["built"] == 0);
    CHECK(j["removed"] == 0);
    CHECK(j["failed"] == 0);
    CHECK(j["up_to_date"] == j["actions"].size());
    fs::remove(report);
}

} // namespace

TEST_CASE("SIGKILL at random points: outputs stay complete and the next build converges", "[crash]") {
    uint64_t seed = kDefaultSeed;
    if (const char* s = std::getenv("AF_CRASH_SEED")) seed = std::stoull(s, nullptr, 0);
    INFO("AF_CRASH_SEED=" << seed);
    std::mt19937_64 rng(seed);

    const fs::path base = fs::temp_directory_path() / ("af-crash-test-" + std::to_string(getpid()));
    fs::remove_all(base);
    struct Cleanup {
        fs::path p;
        ~Cleanup() {
            std::error_code ec;
            fs::remove_all(p, ec);
        }
    } cleanup{base};

    const Reference ref_a = clean_build(base / "clean-a", false);
    const Reference ref_b = clean_build(base / "clean-b", true);
    REQUIRE(ref_a.tree.outputs != ref_b.tree.outputs);
    // The windows the kills are spread over, from a fresh start (a whole
    // clean build, process start and plugin loading included) and for the
    // smaller A → B rebuild. On a shared machine build times wander, so each
    // window narrows when a build beats its kill and widens when kills land.
    const double fresh = std::max(ref_a.seconds, 0.2) * 1.1;
    const double initial[2] = {fresh, fresh / 2};
    double window[2] = {initial[0], initial[1]};
    WARN("clean build " << ref_a.seconds << " s; seed " << seed);

    const fs::path root = base / "killed";
    fs::create_directories(root);
    af::sdk::write_file_atomic(root / "pipeline.yaml", std::string(kPipeline));
    int kills = 0, finished_before_kill = 0, rounds = 0;
    size_t max_temporaries = 0;
    while (kills < kKills) {
        REQUIRE(rounds < 4 * kKills); // kills keep missing: the window is wrong
        // Even rounds: from nothing to A. Odd rounds: from A's converged
        // outputs to B, so kills land in incremental work and stale removal.
        const bool to_b = rounds % 2 == 1;
        if (!to_b) {
            fs::remove_all(root / "build");
            fs::remove_all(root / ".assetforge");
        }
        write_inputs(root, to_b);
        const Reference& target = to_b ? ref_b : ref_a;
        std::vector<const Reference*> allowed = {&target};
        if (to_b) allowed.push_back(&ref_a);
        for (int k = 0; k < kKillsPerRound && kills < kKills; ++k) {
            const double w = window[to_b];
            auto delay = std::chrono::microseconds(int64_t(std::uniform_real_distribution<double>(0.0, w)(rng) * 1e6));
            auto s = spawn_build(root);
            std::string label =
                "round " + std::to_string(rounds) + " kill at " + std::to_string(delay.count() / 1000) + " ms";
            if (kill_after(s, delay, root)) {
                ++kills;
                window[to_b] = std::min(w * 1.1, initial[to_b] * 1.5);
                check_complete(root, allowed, label);
                max_temporaries = std::max(max_temporaries, scan(root).temporaries.size());
            } else {
                ++finished_before_kill;
                window[to_b] = std::max(w * 0.7, 0.02);
                check_complete(root, {&target}, label + " (finished first)");
                break; // the round's work is done; nothing left to interrupt
            }
        }
        check_converges(root, target, "round " + std::to_string(rounds));
        ++rounds;
    }
    WARN(kills << " kills in " << rounds << " rounds; " << finished_before_kill
               << " builds finished before their kill; at most " << max_temporaries
               << " abandoned temporaries seen at once");
    CHECK(kills == kKills); // every one of them landed on a running build
}
