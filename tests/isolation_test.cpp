// Plugin isolation end to end: a third-party container that crashes, hogs
// memory, reads files or hangs fails one action, and the build goes on.
// The plugin is tests/isolation_plugins/hostile.cpp, loaded from
// $ASSETFORGE_PLUGIN_PATH like any plugin not installed with assetforge.
#include "cli_run.hpp"
#include "support/hostile_plugin.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <thread>
#include <vector>

namespace fs = std::filesystem;
using namespace af::test;

namespace {

constexpr const char* kPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.hostile"
    steps: [ decode ]
    output: "out/{stem}.png"
)";

// `good` well-behaved files and one that does `behaviour`, named x.hostile.
void project(const TempDir& t, int good, char behaviour) {
    t.write("pipeline.yaml", kPipeline);
    for (int i = 0; i < good; ++i) t.write("src/ok" + std::to_string(i) + ".hostile", std::string("HSTLo") + char(i));
    if (behaviour) t.write("src/x.hostile", std::string("HSTL") + behaviour);
}

size_t occurrences(const std::string& text, const std::string& what) {
    size_t n = 0;
    for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
    return n;
}

size_t outputs(const TempDir& t) {
    size_t n = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(t / "out", ec)) n += e.path().extension() == ".png";
    return n;
}

} // namespace

TEST_CASE("isolation: a plugin that segfaults on one of 41 files fails that action only", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 40, 's');
    Run r = run_in(t.path(), "build -j2 --report report.json");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(outputs(t) == 40);
    CHECK_THAT(r.out,
               Catch::Contains(std::string("plugin 'hostile' ") + kSegv) && Catch::Contains("in read of x.hostile"));
    REQUIRE(fs::exists(t / "report.json"));
    CHECK_THAT(slurp(t / "report.json"), Catch::Contains(kSegv));
    SECTION("the next build reuses the workers' results and fails the same action again") {
        Run again = run_in(t.path(), "build -j2");
        INFO(again.out);
        CHECK(again.code == 1);
        CHECK_THAT(again.out, Catch::Contains(kSegv));
    }
}

TEST_CASE("isolation: abort() in a plugin fails that action, the worker is replaced", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 6, 'a');
    Run r = run_in(t.path(), "build -j1");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(outputs(t) == 6);
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' crashed (SIGABRT) in read of"));
}

#if !defined(AF_ASAN) // the sanitizer's own SIGSEGV handler reports in-process crashes there
TEST_CASE("isolation: in process, a crash names plugin, call and input, and finished work is kept", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 12, 's');
    // Actions start in reverse name order: "a" comes last, after the others finished.
    fs::rename(t / "src/x.hostile", t / "src/a.hostile");
    Run r = run_in(t.path(), "build -j1 --isolate none");
    INFO(r.out);
    CHECK(r.code == 128 + SIGSEGV); // the process dies of the signal (as the shell reports it)
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' crashed (SIGSEGV) in read of a.hostile"));
    // What finished before the crash was committed: the next build does not redo it.
    std::map<fs::path, fs::file_time_type> before;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(t / "out", ec)) before[e.path()] = fs::last_write_time(e.path());
    REQUIRE(!before.empty());
    Run again = run_in(t.path(), "build -j1");
    INFO(again.out);
    CHECK(again.code == 1);
    CHECK_THAT(again.out, Catch::Contains("0 built, 12 up to date, 1 failed"));
    CHECK(outputs(t) == 12);
    for (const auto& [file, time] : before) CHECK(fs::last_write_time(file) == time);
}
#endif

TEST_CASE("isolation: a plugin calling exit(0) fails the build loudly in process, and one action isolated",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 12, 'e');
    fs::rename(t / "src/x.hostile", t / "src/a.hostile"); // started last (reverse name order): others finish first
    Run in_process = run_in(t.path(), "build -j1 --isolate none");
    INFO(in_process.out);
    CHECK(in_process.code == 70);
    CHECK_THAT(in_process.out, Catch::Contains("plugin 'hostile' ended the process (exit) in read of a.hostile"));
    REQUIRE(outputs(t) == 12);
    // The work finished before the exit was committed: running it again redoes only the exiting action.
    std::map<fs::path, fs::file_time_type> before;
    for (const auto& e : fs::directory_iterator(t / "out")) before[e.path()] = fs::last_write_time(e.path());
    Run again = run_in(t.path(), "build -j1 --isolate none");
    CHECK(again.code == 70);
    for (const auto& [file, time] : before) CHECK(fs::last_write_time(file) == time);
    // In a worker, the same exit fails that action only.
    Run isolated = run_in(t.path(), "build -j1 --isolate all");
    INFO(isolated.out);
    CHECK(isolated.code == 1);
    CHECK_THAT(isolated.out, Catch::Contains("0 built, 12 up to date, 1 failed"));
    CHECK_THAT(isolated.out, Catch::Contains("plugin 'hostile' exited with status 0 in read of a.hostile"));
    CHECK(outputs(t) == 12);
}

TEST_CASE("isolation: a plugin's flood of warnings is capped per action in the terminal, the state and no-ops",
          "[isolation]") {
    HostilePath path;
    for (const char* isolate : {"none", "all"}) {
        INFO("--isolate " << isolate);
        TempDir t;
        project(t, 2, 'w');
        Run r = run_in(t.path(), std::string("build -j1 --isolate ") + isolate);
        CHECK(r.code == 0);
        CHECK(r.out.size() < 1024 * 1024); // 40,000 lines of 3,000 bytes would be 120 MB
        // 64 KiB of warnings kept (32 lines cut to 2 KiB each), the other 19,968 counted.
        CHECK_THAT(r.out, Catch::Contains("19968 more warnings from plugins omitted"));
        size_t info_lines = 0;
        for (size_t at = r.out.find("info: x.hostile"); at != std::string::npos;
             at = r.out.find("info: x.hostile", at + 1))
            ++info_lines;
        CHECK(info_lines <= 100); // printed as they come, up to the cap
        uint64_t state_bytes = 0;
        for (const auto& e : fs::recursive_directory_iterator(t.path()))
            if (e.path().filename().string().rfind("state.db", 0) == 0) state_bytes += e.file_size();
        CHECK(state_bytes > 0);
        CHECK(state_bytes < 4 * 1024 * 1024);
        Run again = run_in(t.path(), "build -j1");
        CHECK(again.code == 0);
        CHECK(again.out.size() < 1024 * 1024);
    }
}

TEST_CASE("isolation: a sandboxed plugin reaches nothing past its worker: no signal, descriptor, limit, ioctl, "
          "file times, attributes or mount handle",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 1, 0);
    t.write("victim.txt", "the user's file");
    const fs::path victim = t / "victim.txt";
    const auto when = fs::file_time_type::clock::now() - std::chrono::hours(24 * 365);
    fs::last_write_time(victim, when);
    t.write("src/x.hostile", "HSTLx" + victim.string());
    Run r = run_in(t.path(), "build -j1 --isolate all");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("escaped"));
    CHECK(fs::last_write_time(victim) == when);
    CHECK(outputs(t) == 2);
}

TEST_CASE("isolation: a worker sees no environment, and what it prints reaches the terminal escaped, as the "
          "action's warnings",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 1, 'v');
    setenv("ASSETFORGE_REMOTE_CACHE_TOKEN", "s3cr3t-t0ken", 1);
    Run r = run_in(t.path(), "build -j1 --isolate all");
    unsetenv("ASSETFORGE_REMOTE_CACHE_TOKEN");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("s3cr3t-t0ken"));
    CHECK(r.out.find('\x1b') == std::string::npos);
    CHECK(r.out.find('\r') == std::string::npos);
    CHECK(r.out.find('\a') == std::string::npos);
    // Every printed line is the action's, named as the plugin's output, with its escapes shown.
    CHECK_THAT(r.out, Catch::Contains(
                          "x.hostile: printed: \\x1b[2J\\x1b[H9 built, 0 up to date, 0 failed (plugin 'hostile')"));
    CHECK_THAT(r.out, Catch::Contains("printed: \\x1b]0;owned\\x07stderr line\\x0d\\x1b[Kpartial"));
    CHECK_THAT(r.out, Catch::Contains("\\x1b[1Alog with an escape"));
    CHECK(outputs(t) == 2);
}

// Under AddressSanitizer the worker's heap limit sits above the sanitizer's shadow reservation: no bound at all.
#if !defined(AF_ASAN)
TEST_CASE("isolation: shared memory counts against --memory-budget: 1 GiB through a memory file or a shared "
          "mapping is refused",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 2, 'M');
    Run r = run_in(t.path(), "build -j1 --isolate all --memory-budget 256");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, !Catch::Contains("took 1 GiB"));
    CHECK(outputs(t) == 3);
}

TEST_CASE("isolation: a plugin taking 1 GiB under --memory-budget 256 fails that action, RSS stays low",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 3, 'm');
    MeasuredRun r = run_cli_measured({"build", "-j2", "--memory-budget", "256"}, t.path());
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(outputs(t) == 3);
    CHECK_THAT(r.out, Catch::Contains("x.hostile"));
    CHECK(r.peak_rss_kib <= 320 * 1024);
}
#endif

// LeakSanitizer needs the host traceable, so sanitizer builds leave it dumpable (isolation::protect_host).
#if !defined(AF_ASAN) && !defined(AF_TSAN)
namespace {

// The children of `parent`, from /proc.
std::vector<pid_t> children_of(pid_t parent) {
    std::vector<pid_t> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator("/proc", ec)) {
        std::ifstream stat(e.path() / "stat");
        std::string line;
        if (!std::getline(stat, line)) continue;
        const size_t close = line.rfind(')');
        if (close == std::string::npos) continue;
        std::istringstream rest(line.substr(close + 2));
        char state = 0;
        pid_t ppid = 0;
        rest >> state >> ppid;
        if (ppid == parent) out.push_back(pid_t(std::stol(e.path().filename().string())));
    }
    return out;
}

// From a child of the test with CAP_SYS_PTRACE out of its effective set (a root CI machine has it; a user does
// not): which of the calls that take from another process worked on `target`.
std::string taken_from(pid_t target) {
    int pipe_fds[2];
    REQUIRE(::pipe(pipe_fds) == 0);
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        __user_cap_header_struct header{_LINUX_CAPABILITY_VERSION_3, 0};
        __user_cap_data_struct caps[2]{};
        ::syscall(SYS_capget, &header, caps);
        caps[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
        ::syscall(SYS_capset, &header, caps);
        std::string worked;
        const long pidfd = ::syscall(SYS_pidfd_open, target, 0);
        if (pidfd >= 0 && ::syscall(SYS_pidfd_getfd, pidfd, 0, 0) >= 0) worked += " pidfd_getfd";
        char byte = 0, there = 0;
        iovec local{&byte, 1}, remote{&there, 1};
        // The target's own copy of the address of a static: the same executable maps it at a random base, so read
        // an address from its maps instead.
        std::ifstream maps("/proc/" + std::to_string(target) + "/maps");
        std::string first;
        if (std::getline(maps, first)) remote.iov_base = reinterpret_cast<void*>(std::stoull(first, nullptr, 16));
        if (::process_vm_readv(target, &local, 1, &remote, 1, 0) == 1) worked += " process_vm_readv";
        (void)!::write(pipe_fds[1], worked.data(), worked.size());
        ::_exit(0);
    }
    ::close(pipe_fds[1]);
    std::string worked;
    char buf[256];
    for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) > 0;) worked.append(buf, size_t(n));
    ::close(pipe_fds[0]);
    ::waitpid(child, nullptr, 0);
    return worked;
}

} // namespace

TEST_CASE("isolation: the host is not dumpable: a process of the same user cannot take its descriptors or read "
          "its memory",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 0, 'h');
    // The build waits on the hung worker: the host is alive and has started its worker when the check runs.
    const std::string cmd = "cd '" + t.path().string() + "' && exec " + AF_EXE + " build -j1 --action-timeout 60";
    const pid_t host = ::fork();
    REQUIRE(host >= 0);
    if (host == 0) {
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // A worker that stays: the first one may be the short-lived worker that describes the plugin.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    int seen = 0;
    while (seen < 5 && std::chrono::steady_clock::now() < deadline) {
        seen = children_of(host).empty() ? 0 : seen + 1;
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    const bool started = seen == 5;
    const std::string worked = started ? taken_from(host) : "";
    ::kill(host, SIGKILL);
    ::waitpid(host, nullptr, 0);
    REQUIRE(started);
    INFO("what worked on the host:" << worked);
    CHECK(worked.empty());
    // The same calls work on a dumpable process of the user (a child of the test), so the check can fail.
    const pid_t dumpable = ::fork();
    REQUIRE(dumpable >= 0);
    if (dumpable == 0) {
        ::pause();
        ::_exit(0);
    }
    const std::string control = taken_from(dumpable);
    ::kill(dumpable, SIGKILL);
    ::waitpid(dumpable, nullptr, 0);
    CHECK(control == " pidfd_getfd process_vm_readv");
}
#endif

namespace {

// `assetforge ARGS` in `dir` as a user runs it: in a terminal (a pty) that is its controlling terminal and its
// stdin, stdout and stderr. Returns what is waiting in the terminal's input once it is done: what the user's shell
// would read next.
std::string typed_into_terminal(const fs::path& dir, const std::string& args) {
    const int master = ::posix_openpt(O_RDWR | O_NOCTTY);
    REQUIRE(master >= 0);
    REQUIRE(::grantpt(master) == 0);
    REQUIRE(::unlockpt(master) == 0);
    const std::string slave_name = ::ptsname(master);
    const std::string cmd = "cd '" + dir.string() + "' && exec " + AF_EXE + " " + args;
    const pid_t child = ::fork();
    REQUIRE(child >= 0);
    if (child == 0) {
        ::setsid();
        const int slave = ::open(slave_name.c_str(), O_RDWR); // the session's controlling terminal
        if (slave < 0) ::_exit(126);
        ::ioctl(slave, TIOCSCTTY, 0);
        for (int fd = 0; fd < 3; ++fd) ::dup2(slave, fd);
        ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    // The output is drained as it comes, or a full terminal would stop the build.
    char buf[4096];
    int status = 0;
    for (;;) {
        pollfd p{master, POLLIN, 0};
        if (::poll(&p, 1, 100) > 0 && (p.revents & POLLIN)) (void)!::read(master, buf, sizeof buf);
        if (::waitpid(child, &status, WNOHANG) == child) break;
    }
    // The input queue, read from the terminal's side without waiting for a whole line.
    const int slave = ::open(slave_name.c_str(), O_RDWR | O_NOCTTY | O_NONBLOCK);
    REQUIRE(slave >= 0);
    termios raw{};
    ::tcgetattr(slave, &raw);
    raw.c_lflag &= ~tcflag_t(ICANON | ECHO);
    raw.c_cc[VMIN] = 0;
    raw.c_cc[VTIME] = 0;
    ::tcsetattr(slave, TCSANOW, &raw);
    std::string typed;
    for (ssize_t n; (n = ::read(slave, buf, sizeof buf)) > 0;) typed.append(buf, size_t(n));
    ::close(slave);
    ::close(master);
    return typed;
}

} // namespace

TEST_CASE("isolation: a plugin in a worker cannot type into the user's terminal", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 1, 't');
    const std::string sandboxed = typed_into_terminal(t.path(), "build -j1 --isolate all");
    CHECK_THAT(sandboxed, !Catch::Contains("typed-by-plugin"));
    CHECK(outputs(t) == 2);
    // In process the same plugin reaches the terminal (where the kernel still has TIOCSTI: a root CI machine, or
    // dev.tty.legacy_tiocsti on), so the check above can fail.
    TempDir t2;
    project(t2, 1, 't');
    const std::string in_process = typed_into_terminal(t2.path(), "build -j1 --isolate none");
    std::ifstream legacy("/proc/sys/dev/tty/legacy_tiocsti");
    int allowed = 1;
    legacy >> allowed;
    if (allowed == 1 || ::geteuid() == 0) CHECK_THAT(in_process, Catch::Contains("typed-by-plugin"));
}

TEST_CASE("isolation: a sandboxed plugin cannot open files, in process it can", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 1, 'f');
    Run sandboxed = run_in(t.path(), "build");
    INFO(sandboxed.out);
    CHECK(sandboxed.code == 1);
    // The failure names the plugin whose words it is, as its warnings do.
    CHECK_THAT(sandboxed.out, Catch::Contains("cannot open /etc/hostname: Permission denied (plugin 'hostile')"));
    if (fs::exists("/etc/hostname")) {
        Run trusted = run_in(t.path(), "build --isolate none");
        INFO(trusted.out);
        CHECK(trusted.code == 0);
    }
}

TEST_CASE("isolation: --action-timeout stops a plugin that never returns", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 4, 'h');
    const auto start = std::chrono::steady_clock::now();
    Run r = run_in(t.path(), "build -j2 --action-timeout 5");
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(outputs(t) == 4);
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' did not finish read of") &&
                          Catch::Contains("within 5 s (--action-timeout)"));
    CHECK(seconds >= 5);
    CHECK(seconds < 30);
}

namespace {

// The namespaces the sealed workers of this machine entered, as `assetforge plugins` reports their confinement
// ("namespaces user net ipc uts mnt pid"); "" when it names none.
std::string worker_namespaces(const TempDir& t) {
    const std::string out = run_in(t.path(), "plugins").out;
    const size_t at = out.find("namespaces ", out.find("loaded only in sealed workers ("));
    return at == std::string::npos ? "" : out.substr(at, out.find_first_of(",)", at) - at) + " ";
}

// Children of this process still running, after reaping those that ended (it is their subreaper).
int living_children() {
    for (int status = 0;;) {
        const pid_t pid = ::waitpid(-1, &status, WNOHANG);
        if (pid > 0) continue;
        return pid == 0 ? 1 : 0; // 0: some child is still running; -1 (ECHILD): none left
    }
}

} // namespace

TEST_CASE("isolation: a worker is process 2 of its own PID namespace, and one stopped by a timeout leaves no "
          "process behind",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 0, 'i');
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    // Where a user namespace holds, nothing keeps a PID namespace from being made inside it.
    const std::string held = worker_namespaces(t);
    INFO(held);
    if (held.find(" user ") != std::string::npos) {
        CHECK(held.find(" pid ") != std::string::npos);
        CHECK_THAT(r.out, Catch::Contains("x.hostile: pid 2 (plugin 'hostile')"));
    } else {
        WARN("this kernel gives plugin workers no user namespace, so no PID namespace (" + held + ")");
    }
    TempDir in_process;
    project(in_process, 0, 'i');
    Run trusted = run_in(in_process.path(), "build --isolate none");
    CHECK_THAT(trusted.out, Catch::Contains("x.hostile: pid ") && !Catch::Contains("x.hostile: pid 2 (plugin"));

    // Every process a worker's namespace holds ends with the build, even the worker killed for its time: orphans
    // come to this process (their subreaper), and none may still run once the build is over.
    REQUIRE(::prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    TempDir hung;
    project(hung, 2, 'h');
    Run stopped = run_in(hung.path(), "build --action-timeout 2");
    INFO(stopped.out);
    CHECK(stopped.code == 1);
    bool left = true;
    for (int i = 0; i < 50 && left; ++i) {
        left = living_children() != 0;
        if (left) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    CHECK_FALSE(left);
    ::prctl(PR_SET_CHILD_SUBREAPER, 0);
}

TEST_CASE("isolation: a worker holds at most 256 files, so memory files written unmapped stay within 256 budgets",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 0, 'n');
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    const size_t at = r.out.find("x.hostile: memory files ");
    REQUIRE(at != std::string::npos);
    const int made = std::atoi(r.out.c_str() + at + std::strlen("x.hostile: memory files "));
    CHECK(made > 200); // what the plugin's calls may hold is left to it
    CHECK(made < 256);
    // In process nothing lowers the limit: the count shows what the worker's limit takes away, where the
    // user's own limit is higher.
    rlimit files{};
    REQUIRE(::getrlimit(RLIMIT_NOFILE, &files) == 0);
    if (files.rlim_cur > 600) {
        TempDir in_process;
        project(in_process, 0, 'n');
        Run trusted = run_in(in_process.path(), "build --isolate none");
        const size_t here = trusted.out.find("x.hostile: memory files ");
        REQUIRE(here != std::string::npos);
        CHECK(std::atoi(trusted.out.c_str() + here + std::strlen("x.hostile: memory files ")) > 500);
    }
}

TEST_CASE("convert: a plugin's warnings name the file and the plugin, and --warnings-as-errors fails on them before "
          "writing",
          "[isolation][convert]") {
    HostilePath path;
    TempDir t;
    t.write("l.hostile", "HSTLl");
    Run warned = run_in(t.path(), "convert l.hostile l.png");
    INFO(warned.out);
    CHECK(warned.code == 0);
    CHECK_THAT(warned.out, Catch::Contains("convert: warning: l.hostile: hostile says hello (plugin 'hostile')") &&
                               Catch::Contains("l.hostile: offset 5: hostile warns (plugin 'hostile')"));
    fs::remove(t / "l.png");
    Run refused = run_in(t.path(), "convert l.hostile l.png --warnings-as-errors");
    INFO(refused.out);
    CHECK(refused.code == 1);
    CHECK_THAT(refused.out,
               Catch::Contains("convert: error: l.hostile: hostile says hello (plugin 'hostile')") &&
                   Catch::Contains("l.png not written (--warnings-as-errors: 2 warning(s) reading l.hostile)"));
    CHECK_FALSE(fs::exists(t / "l.png"));
    // A writer's lines name the file it writes; a writer that warns fails --warnings-as-errors, its file removed.
    t.write("o.hostile", "HSTLoW");
    REQUIRE(run_in(t.path(), "convert o.hostile o.png").code == 0);
    Run written = run_in(t.path(), "convert o.png w.hostile --no-mips");
    INFO(written.out);
    CHECK(written.code == 0);
    CHECK_THAT(written.out, Catch::Contains("w.hostile: hostile writes (plugin 'hostile')") &&
                                Catch::Contains("warning: w.hostile: hostile warns as it writes (plugin 'hostile')"));
    // It stores one level whatever it is handed: --mips dropped is said, and refused under --warnings-as-errors.
    Run mips = run_in(t.path(), "convert o.png mips.hostile --mips");
    INFO(mips.out);
    CHECK(mips.code == 0);
    CHECK_THAT(mips.out, Catch::Contains("warning: o.png: the hostile writer stored 1 of the 2 mip levels it was "
                                         "handed (--mips)"));
    Run strict_mips = run_in(t.path(), "convert o.png strict-mips.hostile --mips --warnings-as-errors");
    CHECK(strict_mips.code == 1);
    CHECK_FALSE(fs::exists(t / "strict-mips.hostile"));
    Run strict = run_in(t.path(), "convert o.png strict.hostile --no-mips --warnings-as-errors");
    INFO(strict.out);
    CHECK(strict.code == 1);
    CHECK_THAT(strict.out, Catch::Contains("strict.hostile removed (--warnings-as-errors: 1 warning(s) writing it)"));
    CHECK_FALSE(fs::exists(t / "strict.hostile"));
}

TEST_CASE("isolation: a worker's log lines and read warnings name the file", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 0, 'l');
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("x.hostile: hostile says hello (plugin 'hostile')"));
}

TEST_CASE("isolation: --isolate takes none, third-party or all", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 2, 0);
    CHECK(run_in(t.path(), "build --isolate all").code == 0);
    Run bad = run_in(t.path(), "build --isolate some");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("--isolate expects none, third-party or all"));
}

TEST_CASE("plugins: exits 1 when a plugin failed to load", "[isolation][plugins]") {
    setenv("ASSETFORGE_PLUGIN_PATH", AF_TEST_PLUGIN_DIR, 1); // holds abi_wrong_major, abi_no_entry, …
    Run broken = run_cli("plugins");
    unsetenv("ASSETFORGE_PLUGIN_PATH");
    INFO(broken.out);
    CHECK(broken.code == 1);
    HostilePath path;
    Run fine = run_cli("plugins");
    INFO(fine.out);
    CHECK(fine.code == 0);
}

TEST_CASE("plugins: a library cut short on the plugin path is refused by name, and every command still runs",
          "[isolation][plugins]") {
    TempDir t;
    const fs::path whole = fs::path(AF_TEST_PLUGIN_DIR) / "abi_good.so";
    fs::create_directories(t / "plugins");
    const fs::path cut = t / "plugins" / "cut.so";
    fs::copy_file(whole, cut);
    fs::resize_file(cut, fs::file_size(whole) / 2);
    setenv("ASSETFORGE_PLUGIN_PATH", (t / "plugins").c_str(), 1);
    Run version = run_cli("--version");
    Run list = run_cli("plugins");
    unsetenv("ASSETFORGE_PLUGIN_PATH");
    INFO(version.out);
    CHECK(version.code == 0);
    INFO(list.out);
    CHECK(list.code == 1); // a plugin failed to load: said, not crashed on
    CHECK_THAT(list.out, Catch::Contains("cut.so") && Catch::Contains("damaged at byte"));
}

TEST_CASE("isolation: `action_timeout:` in the pipeline stops a hung plugin too", "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 1, 'h');
    t.write("pipeline.yaml", std::string("action_timeout: 2\n") + kPipeline);
    Run r = run_in(t.path(), "build");
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK(outputs(t) == 1);
    CHECK_THAT(r.out, Catch::Contains("within 2 s (--action-timeout)"));
    t.write("pipeline.yaml", std::string("action_timeout: soon\n") + kPipeline);
    Run bad = run_in(t.path(), "build");
    CHECK(bad.code == 2);
    CHECK_THAT(bad.out, Catch::Contains("action_timeout must be a positive number of seconds"));
}

TEST_CASE("isolation: probe_size gets the whole file's size, isolated and in process", "[isolation]") {
    HostilePath path;
    for (const char* mode : {"third-party", "none"}) {
        TempDir t;
        project(t, 2, 0);
        // The same head as ok0: only the file's size (over the plugin's 1 MiB) tells it apart.
        t.write("src/big.hostile", std::string("HSTLo") + std::string((1u << 20) + 10, 'x'));
        Run r = run_in(t.path(), std::string("build -j2 --isolate ") + mode);
        INFO(mode << "\n" << r.out);
        CHECK(r.code == 1);
        CHECK(outputs(t) == 2);
        CHECK_THAT(r.out, Catch::Contains("big.hostile") && Catch::Contains("unknown format"));
        Run info = run_in(t.path(), std::string("info src/ok0.hostile src/big.hostile"));
        INFO(info.out);
        CHECK_THAT(info.out, Catch::Contains("hostile"));
    }
}

TEST_CASE("isolation: a probe that never returns is stopped within 5 s without --action-timeout, with one warning",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    project(t, 3, 'p');
    t.write("src/y.hostile", "HSTLp"); // a second file it spins on: still one warning
    const auto start = std::chrono::steady_clock::now();
    Run r = run_bounded(t.path(), "build -j2", 60);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    INFO(r.out);
    CHECK(r.code == 1); // the two files it spun on are claimed by no plugin
    CHECK(outputs(t) == 3);
    CHECK(occurrences(r.out, "did not answer probe of") == 1);
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' did not answer probe of ") &&
                          Catch::Contains(".hostile within 5 s; stopped it"));
    CHECK(seconds >= 5);
    CHECK(seconds < 40);
}

// A 2x2 RGBA8 PNG: a file the host's own PNG reader claims.
constexpr char kPng[] = "\x89\x50\x4e\x47\x0d\x0a\x1a\x0a\x00\x00\x00\x0d\x49\x48\x44\x52\x00\x00\x00\x02\x00\x00\x00"
                        "\x02\x08\x06\x00\x00\x00\x72\xb6\x0d\x24\x00\x00\x00\x15\x49\x44\x41\x54\x78\x9c\x63\x10\x50"
                        "\x30\xf8\x0f\xc2\x0c\x0e\x01\x09\xff\x41\x18\x00\x31\x54\x06\x9d\x55\x45\xe6\x88\x00\x00\x00"
                        "\x00\x49\x45\x4e\x44\xae\x42\x60\x82";

TEST_CASE("isolation: a probe that crashes on every file warns once, never on a file a bundled plugin reads",
          "[isolation]") {
    HostilePath path;
    TempDir t;
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  pictures:
    inputs: "src/*.png"
    steps: [ decode ]
    output: "png/{stem}.png"
  hostile:
    inputs: "src/*.hostile"
    steps: [ decode ]
    output: "hst/{stem}.png"
)");
    // hostile's probe crashes on every path holding "probe-crash": the PNGs are the host's, the rest no one's.
    for (int i = 0; i < 12; ++i) t.write("src/probe-crash-" + std::to_string(i) + ".png", std::string(kPng, 78));
    for (int i = 0; i < 3; ++i) t.write("src/probe-crash-" + std::to_string(i) + ".hostile", "HSTLo");
    Run r = run_bounded(t.path(), "build -j2", 120);
    INFO(r.out);
    CHECK(r.code == 1); // the .hostile files: their only plugin crashed on them
    size_t pngs = 0;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(t / "png", ec)) pngs += e.path().extension() == ".png";
    CHECK(pngs == 12);
    CHECK(occurrences(r.out, "in probe of") == 1);
    const size_t at = r.out.find("in probe of");
    REQUIRE(at != std::string::npos);
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    CHECK_THAT(line, Catch::Contains(".hostile") && !Catch::Contains(".png"));
    CHECK_THAT(r.out, Catch::Contains("plugin 'hostile' crashed (SIG"));
}
