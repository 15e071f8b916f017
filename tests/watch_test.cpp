// `assetforge watch` (issue 31): a running watch process, changes made by the
// test itself (in-place writes, an editor's temp file renamed over the input,
// new and deleted files, new and renamed folders, pipeline edits, bursts),
// and what it prints and writes. Every wait is bounded.
#include "cli_run.hpp"
#include "normal_png.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <csignal>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <poll.h>
#include <string>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace fs = std::filesystem;

namespace {

using namespace af::test;
using Clock = std::chrono::steady_clock;

const char* kPipeline = R"(assetforge: 1
jobs:
  files:
    inputs: "src/**/*.txt"
    steps: [ copy ]
    output: "out/{dir}/{name}"
  pack:
    from: files
    gather: { zip: {} }
    output: "dist/mod.zip"
)";

// `assetforge watch ARGS` in `dir` (the executable `exe`), its output collected as it comes.
class Watch {
  public:
    Watch(const fs::path& dir, const std::vector<std::string>& args, const std::string& exe = AF_EXE) {
        int fds[2];
        REQUIRE(::pipe(fds) == 0);
        std::vector<std::string> all = {exe, "watch"};
        all.insert(all.end(), args.begin(), args.end());
        std::vector<char*> argv;
        for (auto& a : all) argv.push_back(a.data());
        argv.push_back(nullptr);
        pid_ = ::fork();
        REQUIRE(pid_ >= 0);
        if (pid_ == 0) {
            ::close(fds[0]);
            ::dup2(fds[1], 1);
            ::dup2(fds[1], 2);
            ::close(fds[1]);
            if (::chdir(dir.c_str()) != 0) _exit(127);
            ::execv(argv[0], argv.data());
            _exit(127);
        }
        ::close(fds[1]);
        fd_ = fds[0];
        ::fcntl(fd_, F_SETFL, O_NONBLOCK);
    }
    ~Watch() {
        if (pid_ > 0) {
            ::kill(pid_, SIGKILL);
            ::waitpid(pid_, nullptr, 0);
        }
        ::close(fd_);
    }
    Watch(const Watch&) = delete;
    Watch& operator=(const Watch&) = delete;

    pid_t pid() const { return pid_; }
    const std::string& out() {
        read_some(0);
        return out_;
    }
    // Waits (at most `secs`) until the output holds `n` occurrences of `text`.
    bool wait_for(const std::string& text, size_t n = 1, double secs = 10) {
        const auto until = Clock::now() + std::chrono::duration<double>(secs);
        for (;;) {
            if (count(text) >= n) return true;
            if (Clock::now() >= until) return false;
            read_some(20);
        }
    }
    size_t count(const std::string& text) {
        read_some(0);
        size_t n = 0;
        for (size_t at = out_.find(text); at != std::string::npos; at = out_.find(text, at + 1)) ++n;
        return n;
    }
    // Rebuild lines so far (each ends with the time from the change).
    size_t rebuilds() { return count("s from the change"); }
    // Waits until no line came for `quiet` seconds (at most `secs` in all).
    void settle(double quiet = 0.6, double secs = 15) {
        const auto until = Clock::now() + std::chrono::duration<double>(secs);
        size_t seen = out().size();
        auto last = Clock::now();
        while (Clock::now() < until && Clock::now() - last < std::chrono::duration<double>(quiet)) {
            read_some(20);
            if (out_.size() != seen) seen = out_.size(), last = Clock::now();
        }
    }
    // Sends `sig` and waits (at most 10 s) for the exit code; -1 when killed or still running.
    int stop(int sig) {
        ::kill(pid_, sig);
        const auto until = Clock::now() + std::chrono::seconds(10);
        int status = 0;
        while (Clock::now() < until) {
            read_some(0);
            if (::waitpid(pid_, &status, WNOHANG) == pid_) {
                pid_ = -1;
                read_some(0);
                return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
            }
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
        }
        return -1;
    }

  private:
    void read_some(int wait_ms) {
        pollfd p{fd_, POLLIN, 0};
        if (wait_ms && ::poll(&p, 1, wait_ms) <= 0) return;
        char buf[4096];
        for (ssize_t n; (n = ::read(fd_, buf, sizeof buf)) > 0;) out_.append(buf, size_t(n));
    }

    pid_t pid_ = -1;
    int fd_ = -1;
    std::string out_;
};

// An editor's save: the whole file to a temporary beside it, renamed over it.
void save_by_rename(const TempDir& t, const std::string& rel, const std::string& text) {
    t.write(rel + ".swp~", text);
    fs::rename(t / (rel + ".swp~"), t / rel);
}

bool wait_until(const std::function<bool()>& ok, double secs = 10) {
    const auto until = Clock::now() + std::chrono::duration<double>(secs);
    while (!ok()) {
        if (Clock::now() >= until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// Nothing left to build: a following build runs nothing.
void require_nothing_to_build(const TempDir& t) {
    Run status = run_in(t.path(), "status");
    INFO(status.out);
    CHECK(status.out.find("0 action(s) would run") != std::string::npos);
    Run b = run_in(t.path(), "build");
    INFO(b.out);
    CHECK(b.code == 0);
    CHECK(b.out.find("0 built") != std::string::npos);
}

} // namespace

TEST_CASE("edits in place, editor saves, new and deleted files rebuild their actions, Ctrl-C exits 130") {
    TempDir t;
    t.write("src/a.txt", "a1");
    t.write("src/b.txt", "b1");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--explain", "--debounce", "30", "--report", "report.json"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    CHECK(w.out().find("by inotify") != std::string::npos);
    CHECK(slurp(t / "out/a.txt") == "a1");
    CHECK(slurp(t / "report.json").find("src/c.txt") == std::string::npos);

    t.write("src/a.txt", "a2"); // in place
    REQUIRE(w.wait_for("s from the change", 1));
    CHECK(slurp(t / "out/a.txt") == "a2");
    CHECK(w.out().find("src/a.txt (content) → 2 built") != std::string::npos);
    // Why it ran, down to the file and how it changed, for the copy and for the gather made from its output.
    CHECK(w.out().find("explain: files: src/a.txt: input changed (src/a.txt: content changed)") != std::string::npos);
    CHECK(w.out().find("explain: pack: *: input changed (out/a.txt from src/a.txt: content changed)") !=
          std::string::npos);

    save_by_rename(t, "src/a.txt", "a3");
    REQUIRE(w.wait_for("s from the change", 2));
    CHECK(slurp(t / "out/a.txt") == "a3");
    CHECK(w.count("src/a.txt (content) → 2 built") == 2);
    CHECK(w.out().find(".swp~") == std::string::npos); // the editor's temporary is not an input

    t.write("src/c.txt", "c1");
    REQUIRE(w.wait_for("s from the change", 3));
    CHECK(slurp(t / "out/c.txt") == "c1");
    CHECK(w.out().find("src/c.txt (new) → 2 built") != std::string::npos);
    CHECK(w.out().find("explain: files: src/c.txt: new input (src/c.txt: new file)") != std::string::npos);
    CHECK(slurp(t / "report.json").find("src/c.txt") != std::string::npos); // the report follows each rebuild

    fs::remove(t / "src/b.txt");
    REQUIRE(w.wait_for("s from the change", 4));
    CHECK(!fs::exists(t / "out/b.txt")); // its output removed, as by `build`
    CHECK(w.out().find("src/b.txt (deleted) → 1 built, 1 removed") != std::string::npos);
    CHECK(w.out().find("explain: pack: *: input changed (src/b.txt: deleted)") != std::string::npos);

    CHECK(w.rebuilds() == 4); // its own outputs did not set off rebuilds
    require_nothing_to_build(t);
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("new folders, renamed folders and a deleted input root") {
    TempDir t;
    t.write("src/a.txt", "a1");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));

    // The folder and its file at once: the file may be written before the folder's watch exists.
    t.write("src/sub/deep/d.txt", "d1");
    REQUIRE(w.wait_for("s from the change", 1));
    CHECK(slurp(t / "out/sub/deep/d.txt") == "d1");
    CHECK(w.out().find("src/sub/deep/d.txt (new)") != std::string::npos);

    fs::rename(t / "src/sub", t / "src/moved");
    REQUIRE(w.wait_for("s from the change", 2));
    CHECK(slurp(t / "out/moved/deep/d.txt") == "d1");
    CHECK(!fs::exists(t / "out/sub/deep/d.txt"));
    CHECK(w.out().find("src/sub/ (folder deleted or moved away)") != std::string::npos);

    // A file in the renamed folder is still watched under its new name.
    t.write("src/moved/deep/d.txt", "d2");
    REQUIRE(w.wait_for("src/moved/deep/d.txt (content)"));
    CHECK(slurp(t / "out/moved/deep/d.txt") == "d2");

    // The whole input root goes (its watch is lost: a full rescan), then comes back.
    fs::remove_all(t / "src");
    REQUIRE(w.wait_for("full rescan"));
    w.settle();
    t.write("src/e.txt", "e1");
    REQUIRE(w.wait_for("src/e.txt (new)"));
    CHECK(slurp(t / "out/e.txt") == "e1");
    CHECK(w.stop(SIGTERM) == 0);
}

TEST_CASE("an overflowed event queue is a full rescan: a change whose event was lost is still built") {
    TempDir t;
    t.write("src/a.txt", "a1");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    // Stopped, the watch reads no events: more files in a watched folder than the kernel queues events for (each
    // is a create, a write and a close), then the change that matters, whose event the full queue drops.
    long queued = 16384;
    if (std::ifstream q("/proc/sys/fs/inotify/max_queued_events"); q) q >> queued;
    REQUIRE(queued < 200000); // a test of bounded size
    REQUIRE(::kill(w.pid(), SIGSTOP) == 0);
    for (long i = 0; i < queued / 2 + 1000; ++i) std::ofstream(t / ("src/n" + std::to_string(i) + ".dat")) << i;
    t.write("src/a.txt", "a2");
    REQUIRE(::kill(w.pid(), SIGCONT) == 0);
    REQUIRE(w.wait_for("full rescan (the kernel's event queue overflowed)"));
    REQUIRE(w.wait_for("s from the change"));
    CHECK(slurp(t / "out/a.txt") == "a2");
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("a changed pipeline reloads, an invalid one is reported and the previous one stays") {
    TempDir t;
    t.write("src/a.txt", "a1");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));

    std::string changed = kPipeline;
    changed.replace(changed.find("out/{dir}"), 3, "out2");
    save_by_rename(t, "pipeline.yaml", changed);
    REQUIRE(w.wait_for("pipeline reloaded"));
    REQUIRE(w.wait_for("s from the change", 1));
    CHECK(slurp(t / "out2/a.txt") == "a1");
    CHECK(!fs::exists(t / "out/a.txt")); // the old job's output went with its old template

    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  files:\n    inputs: \"src/**/*.txt\"\n    steps: [ cpy ]\n");
    REQUIRE(w.wait_for("still watching with the previous one"));
    CHECK(w.out().find("pipeline.yaml") != std::string::npos); // the error names the file
    CHECK(w.out().find("cpy") != std::string::npos);
    t.write("src/a.txt", "a2");
    REQUIRE(w.wait_for("src/a.txt (content)"));
    CHECK(slurp(t / "out2/a.txt") == "a2"); // built by the previous pipeline
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("a burst of 200 saves converges: nothing is left to build") {
    TempDir t;
    for (int i = 0; i < 20; ++i) t.write("src/f" + std::to_string(i) + ".txt", "0");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    for (int round = 1; round <= 10; ++round)
        for (int i = 0; i < 20; ++i) {
            const std::string rel = "src/f" + std::to_string(i) + ".txt";
            if (i % 2)
                save_by_rename(t, rel, std::to_string(round));
            else
                t.write(rel, std::to_string(round));
        }
    REQUIRE(wait_until([&] {
        for (int i = 0; i < 20; ++i)
            if (slurp(t / ("out/f" + std::to_string(i) + ".txt")) != "10") return false;
        return true;
    }));
    w.settle();
    CHECK(w.rebuilds() >= 1);
    CHECK(w.rebuilds() < 200); // debounced, not one build per save
    require_nothing_to_build(t);
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("polling (--poll) finds changes without inotify and says so") {
    TempDir t;
    t.write("src/a.txt", "a1");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--poll", "--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    CHECK(w.out().find("by polling every 0.5 s (--poll)") != std::string::npos);
    t.write("src/a.txt", "a22"); // another size too: some file systems keep coarse times
    REQUIRE(w.wait_for("src/a.txt (content)"));
    CHECK(slurp(t / "out/a.txt") == "a22");
    t.write("src/new/b.txt", "b1");
    REQUIRE(w.wait_for("src/new/b.txt (new)"));
    CHECK(slurp(t / "out/new/b.txt") == "b1");
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("a same-size variant copied over an input with its times kept (cp -p) is rebuilt, by inotify and by "
          "polling") {
    for (const char* how : {"--explain", "--poll"}) {
        TempDir t;
        t.write("src/a.txt", "a1");
        t.write("pipeline.yaml", kPipeline);
        Watch w(t.path(), {how, "--debounce", "30"});
        REQUIRE(w.wait_for("Ctrl-C stops"));
        t.write("variant.txt", "a2");
        fs::last_write_time(t / "variant.txt", fs::last_write_time(t / "src/a.txt"));
        REQUIRE(run_shell("cp -p '" + (t / "variant.txt").string() + "' '" + (t / "src/a.txt").string() + "'").code ==
                0);
        INFO(how << ": " << w.out());
        REQUIRE(w.wait_for("src/a.txt (content)"));
        CHECK(wait_until([&] { return slurp(t / "out/a.txt") == "a2"; }));
        CHECK(w.stop(SIGINT) == 130);
    }
}

TEST_CASE("an input replaced by a link out of the project with a rename (as ln -sf does) is refused, as by build") {
    TempDir t;
    TempDir outside("af-watch-outside");
    outside.write("secret.txt", "the user's secret");
    t.write("src/a.txt", "a1");
    t.write("src/b.txt", "b1");
    t.write("pipeline.yaml", kPipeline);
    Watch w(t.path(), {"--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    fs::create_symlink(outside / "secret.txt", t / "src/a.txt.new");
    fs::rename(t / "src/a.txt.new", t / "src/a.txt");
    REQUIRE(w.wait_for("s from the change"));
    w.settle();
    INFO(w.out());
    CHECK_THAT(w.out(), Catch::Contains("symbolic link"));
    std::error_code ec;
    CHECK((!fs::exists(t / "out/a.txt", ec) || slurp(t / "out/a.txt") != "the user's secret"));
    CHECK(w.stop(SIGINT) == 130);
    // The ordinary build of the same tree says the same.
    Run b = run_in(t.path(), "build");
    INFO(b.out);
    CHECK(b.code == 1);
    CHECK_THAT(b.out, Catch::Contains("symbolic link"));
}

TEST_CASE("a pipeline that does not load at the start is exit 2, as for build") {
    TempDir t;
    t.write("src/a.txt", "a1");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  files:\n    inputs: \"src/*.txt\"\n    steps: [ cpy ]\n");
    Run r = run_in(t.path(), "watch");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out.find("pipeline.yaml:5") != std::string::npos);
    CHECK(!fs::exists(t / "out"));
}

TEST_CASE("a rebuild prints the warnings of the actions it runs, not those every up-to-date output carries") {
    TempDir t;
    lossy_project(t); // in/glass.png: BC5 drops its alpha and blue, with a warning for each
    make_normal_png(t / "in/other.png", "--kind colour --alpha data --seed 3");
    Watch w(t.path(), {"--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    CHECK(w.count("warning: j: in/glass.png: alpha dropped") == 1);
    CHECK(w.count("warning: j: in/other.png: alpha dropped") == 1);
    make_normal_png(t / "scratch/edit.png", "--kind colour --alpha data --seed 9"); // out of the inputs
    fs::rename(t / "scratch/edit.png", t / "in/other.png");
    REQUIRE(w.wait_for("in/other.png (content) → 1 built"));
    CHECK(w.count("warning: j: in/other.png: alpha dropped") == 2); // the rebuilt one says it again
    CHECK(w.count("warning: j: in/glass.png: alpha dropped") == 1); // the up-to-date one does not
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("a save rebuilds only the saved file's actions, from the kept records and globs, a new file checks all") {
    TempDir t;
    for (int i = 0; i < 5; ++i) t.write("src/f" + std::to_string(i) + ".txt", "0");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  files:\n    inputs: \"src/**/*.txt\"\n    steps: [ copy ]\n"
                             "    output: \"out/{dir}/{name}\"\n");
    Watch w(t.path(), {"-v", "--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    CHECK(w.count("5 built, 0 up to date") == 1);

    t.write("src/f2.txt", "in place");
    REQUIRE(w.wait_for("s from the change", 1));
    save_by_rename(t, "src/f3.txt", "renamed over");
    REQUIRE(w.wait_for("s from the change", 2));
    CHECK(slurp(t / "out/f2.txt") == "in place");
    CHECK(slurp(t / "out/f3.txt") == "renamed over");
    // Neither rebuild looked at the four other actions.
    CHECK(w.count("1 built, 0 up to date, 0 failed, 0 removed") == 2);

    // Another shell's build while the watch waits: the watch's next rebuild starts from the records it wrote.
    t.write("src/f4.txt", "from the other shell");
    REQUIRE(w.wait_for("s from the change", 3));
    Run other = run_in(t.path(), "build");
    CHECK(other.code == 0);

    t.write("src/f9.txt", "new");
    REQUIRE(w.wait_for("s from the change", 4));
    CHECK(w.count("1 built, 5 up to date") == 1); // a new file: the globs decide, every action is checked
    w.settle();
    require_nothing_to_build(t);
    CHECK(w.stop(SIGINT) == 130);
}

TEST_CASE("saving one picture of a cubemap's set rebuilds the whole texture from every picture") {
    TempDir t;
    const fs::path cube = fs::path(AF_SOURCE_DIR) / "plugins/xtf/tests/data/bgra8888_cube_16x16_mips";
    for (int f = 0; f < 6; ++f)
        t.copy(cube / ("source_face" + std::to_string(f) + ".png"), "src/sky.face" + std::to_string(f) + ".png");
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  cubes:\n    inputs: \"src/*.png\"\n"
                             "    steps: [ { encode: { format: rgba8 } } ]\n    output: \"out/{stem}.dds\"\n");
    Watch w(t.path(), {"-v", "--debounce", "30"});
    REQUIRE(w.wait_for("Ctrl-C stops"));
    CHECK(w.count("1 built, 0 up to date") == 1);
    const std::string first = slurp(t / "out/sky.dds");
    // A narrowed rebuild still reads the five pictures nobody saved.
    t.copy(cube / "source_face0.png", "src/sky.face3.png");
    REQUIRE(w.wait_for("s from the change", 1));
    INFO(w.out());
    CHECK(w.count("1 built, 0 up to date, 0 failed, 0 removed") == 2);
    CHECK(w.count("FAILED") == 0);
    CHECK(slurp(t / "out/sky.dds") != first);
    CHECK(slurp(t / "out/sky.dds").size() == first.size());
    w.settle();
    require_nothing_to_build(t);
    CHECK(w.stop(SIGINT) == 130);
}

namespace {

// An installation of its own: the executable, and the hostile test plugin in the executable's plugin folder, where
// it counts as one of the host's own (bundled) plugins.
struct Installation {
    explicit Installation(const TempDir& t)
        : exe(t / "inst/bin/assetforge"), plugin(t / "inst/lib/assetforge/plugins/hostile.so") {
        fs::create_directories(exe.parent_path());
        fs::create_directories(plugin.parent_path());
        fs::copy_file(AF_EXE, exe);
        fs::permissions(exe, fs::perms::owner_all);
        original = slurp(fs::path(AF_HOSTILE_PLUGIN_DIR) / "hostile.so");
        // The same plugin built otherwise: its writer's mark patched from 'o' to 'B'.
        swapped = original;
        const std::string mark = "hostile-writer-mark:o";
        const size_t at = swapped.find(mark);
        REQUIRE(at != std::string::npos);
        swapped[at + mark.size() - 1] = 'B';
        install(original);
    }
    // As an installer replaces a file: written beside it, renamed over it.
    void install(const std::string& bytes) const {
        const fs::path tmp = plugin.string() + ".new";
        std::ofstream(tmp, std::ios::binary) << bytes;
        fs::rename(tmp, plugin);
    }
    Run run(const fs::path& dir, const std::string& args) const {
        return run_shell("cd '" + dir.string() + "' && '" + exe.string() + "' " + args);
    }

    fs::path exe, plugin;
    std::string original, swapped;
};

} // namespace

TEST_CASE("a plugin swapped while watch runs: every output is recorded under the binary that made it, so after the "
          "old plugin is restored build rebuilds what the swapped one made") {
    TempDir t;
    Installation inst(t);
    t.write("pipeline.yaml", "assetforge: 1\njobs:\n  copies:\n    inputs: \"src/*.hostile\"\n    allow_empty: true\n"
                             "    steps: [ decode ]\n    output: \"out/{stem}.hostile\"\n");
    fs::create_directories(t / "src");
    // Under --isolate all the plugin's calls run in workers, started when a call first needs one: none before the
    // swap here (nothing to build), so the first is started after it.
    Watch w(t.path(), {"--isolate", "all", "--debounce", "30"}, inst.exe.string());
    REQUIRE(w.wait_for("Ctrl-C stops"));
    inst.install(inst.swapped);
    t.write("src/a.hostile", "HSTLo\x30");
    // Whatever the watch did about the swap, the output is the swapped plugin's once it settles.
    CHECK(wait_until([&] { return fs::exists(t / "out/a.hostile") && slurp(t / "out/a.hostile") == "HSTLB\x30"; }));
    w.settle();
    INFO(w.out());
    CHECK(w.out().find("hostile.so changed: starting again to load it") != std::string::npos);
    CHECK(w.stop(SIGINT) == 130);
    // Recorded under the swapped plugin, which made it: up to date while that plugin is installed.
    Run same = inst.run(t.path(), "build --isolate all");
    INFO(same.out);
    CHECK(same.out.find("0 built, 1 up to date") != std::string::npos);

    inst.install(inst.original);
    Run b = inst.run(t.path(), "build --isolate all");
    INFO(b.out);
    CHECK(b.code == 0);
    CHECK(slurp(t / "out/a.hostile") == "HSTLo\x30"); // made again, by the plugin installed now
}
