#include "host/isolation/worker_pool.hpp"

#include "assetforge/plugin_abi.h"
#include "host/host_services.hpp"
#include "host/isolation/isolation.hpp"
#include "host/plugin_registry.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

extern char** environ;

namespace af::host::isolation {
namespace {

using Clock = std::chrono::steady_clock;

struct Worker {
    pid_t pid = -1;
    int sock = -1;
    int printed = -1; // read end of the pipe that is the worker's stdout and stderr (non-blocking)
};

// What a worker prints during one call. The plugin's stdout and stderr are not the user's terminal: every line
// becomes a warning of the call's action (escaped on the way out like every warning), and past kMaxPrinted bytes
// a call's output is counted, not kept.
class Printed {
  public:
    static constexpr size_t kMaxPrinted = 64 * 1024;
    // Reads what is waiting on the pipe (all of it once the worker is gone).
    void drain(int fd) {
        if (fd < 0) return;
        char buf[8192];
        for (;;) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) return;
            const size_t keep = std::min(size_t(n), kMaxPrinted - std::min(kMaxPrinted, text_.size()));
            text_.append(buf, keep);
            omitted_ += uint64_t(n) - keep;
        }
    }
    // One log message per line, a last unterminated line included.
    void deliver(const std::function<void(Message&)>& on_note) {
        size_t at = 0;
        while (at < text_.size()) {
            size_t end = text_.find('\n', at);
            if (end == std::string::npos) end = text_.size();
            note(on_note, "printed: " + text_.substr(at, end - at));
            at = end + 1;
        }
        if (omitted_) note(on_note, "printed " + std::to_string(omitted_) + " more bytes, not kept");
        text_.clear();
        omitted_ = 0;
    }

  private:
    static void note(const std::function<void(Message&)>& on_note, const std::string& line) {
        Writer w;
        w.i32(AF_LOG_WARN).str(line);
        Message m{Op::Log, w.bytes(), {}};
        try {
            on_note(m);
        } catch (...) {
        }
    }
    std::string text_;
    uint64_t omitted_ = 0;
};

// What ended a worker: "crashed (SIGSEGV)", "exited with status 3". What it printed last goes into `printed`.
std::string reap(Worker& w, bool kill_first, Printed* printed = nullptr) {
    if (w.sock >= 0) ::close(w.sock);
    w.sock = -1;
    struct ClosePipe {
        Worker& w;
        Printed* printed;
        ~ClosePipe() {
            if (w.printed < 0) return;
            if (printed) printed->drain(w.printed);
            ::close(w.printed);
            w.printed = -1;
        }
    } close_pipe{w, printed};
    if (w.pid <= 0) return "ended";
    if (kill_first) ::kill(w.pid, SIGKILL);
    int status = 0;
    pid_t r;
    do r = ::waitpid(w.pid, &status, 0);
    while (r < 0 && errno == EINTR);
    w.pid = -1;
    if (r < 0) return "ended";
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = sigabbrev_np(sig);
        return std::string("crashed (") + (name ? std::string("SIG") + name : "signal " + std::to_string(sig)) + ")";
    }
    return "exited with status " + std::to_string(WEXITSTATUS(status));
}

// The worker's environment: none of the user's (tokens, paths, the terminal's name). A sanitizer build passes its
// runtime's options on, which only a test run sets.
std::vector<char*> worker_environment() {
    std::vector<char*> env;
    for (char** e = environ; kSanitizerBuild && *e; ++e) {
        const std::string_view v(*e);
        const size_t eq = v.find('=');
        if (eq != std::string_view::npos && v.substr(0, eq).ends_with("SAN_OPTIONS")) env.push_back(*e);
    }
    env.push_back(nullptr);
    return env;
}

std::string self_exe() {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return {};
    return std::string(buf, size_t(n));
}

// The host's copies of its bundled plugins other than `library` (descriptors duplicated above the worker's numbers,
// close-on-exec), which a worker loads instead of their files: the codecs af_host.convert reaches there are then
// the bytes the host hashed too.
std::vector<std::pair<int, std::string>> bundled_copies(const std::filesystem::path& library) {
    std::vector<std::pair<int, std::string>> out;
    if (const PluginRegistry* reg = host::registry())
        for (const auto& p : reg->plugins())
            if (p->bundled && p->image_fd >= 0 && p->path != library)
                if (const int fd = ::fcntl(p->image_fd, F_DUPFD_CLOEXEC, 100); fd >= 0)
                    out.emplace_back(fd, p->path.string());
    return out;
}

// Starts `assetforge __plugin-worker …` on a socketpair (its end as fd 3), with the library's bytes as fd 4 and the
// host's copies of its other bundled plugins from fd 5 on (each named by an argument "FD=PATH"), and waits for it
// to say the plugin loaded; `confinement` gets what held around the loading.
Worker spawn(const std::filesystem::path& library, int image_fd, std::string& why, std::string* confinement = nullptr) {
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        why = std::string("cannot create a socket pair: ") + std::strerror(errno);
        return {};
    }
    // Above the numbers the worker's descriptors get, so that no dup2 below is onto itself (which would leave
    // close-on-exec set).
    const int image = ::fcntl(image_fd, F_DUPFD_CLOEXEC, 10);
    const HostSettings& hs = host::settings();
    const std::string exe = self_exe();
    std::vector<std::string> args = {exe,
                                     "__plugin-worker",
                                     library.string(),
                                     std::to_string(settings().memory_limit),
                                     std::to_string(hs.max_texture_bytes),
                                     std::to_string(hs.max_dimension),
                                     std::to_string(hs.max_surfaces),
                                     std::to_string(hs.max_items),
                                     settings().allow_unconfined_load ? "unconfined-allowed" : "confined"};
    const auto copies = bundled_copies(library);
    for (size_t i = 0; i < copies.size(); ++i) args.push_back(std::to_string(5 + i) + "=" + copies[i].second);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    int out[2];
    if (image < 0 || ::pipe2(out, O_CLOEXEC) != 0) {
        why = std::string("cannot pass the plugin to a worker: ") + std::strerror(errno);
        ::close(sv[0]);
        ::close(sv[1]);
        if (image >= 0) ::close(image);
        for (const auto& c : copies) ::close(c.first);
        return {};
    }
    ::fcntl(out[0], F_SETFL, O_NONBLOCK);
    // stdin from /dev/null, stdout and stderr into the pipe, a session of its own: the worker has no terminal to
    // write to, read from or type into (TIOCSTI).
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    posix_spawn_file_actions_adddup2(&fa, sv[1], 3); // dup2 clears FD_CLOEXEC on the copy
    posix_spawn_file_actions_adddup2(&fa, image, 4);
    for (size_t i = 0; i < copies.size(); ++i) posix_spawn_file_actions_adddup2(&fa, copies[i].first, int(5 + i));
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID);
    std::vector<char*> env = worker_environment();
    Worker w;
    int rc = posix_spawn(&w.pid, exe.c_str(), &fa, &attr, argv.data(), env.data());
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    ::close(sv[1]);
    ::close(out[1]);
    ::close(image);
    for (const auto& c : copies) ::close(c.first);
    w.sock = sv[0];
    w.printed = out[0];
    if (rc != 0) {
        ::close(w.sock);
        ::close(w.printed);
        why = std::string("cannot start a plugin worker: ") + std::strerror(rc);
        return {};
    }
    Message hello;
    pollfd pfd{w.sock, POLLIN, 0};
    if (::poll(&pfd, 1, 30000) <= 0 || !recv_message(w.sock, hello) || hello.op != Op::Reply) {
        why = "plugin worker " + reap(w, true) + " while loading the plugin";
        return {};
    }
    close_fds(hello.fds);
    try {
        Reader r(hello.body);
        const int32_t st = r.i32();
        const std::string text = r.str().substr(0, 4096);
        if (st != AF_OK) {
            why = text;
            reap(w, true);
            return {};
        }
        const std::string held = r.str().substr(0, 256);
        if (confinement) *confinement = held;
    } catch (const std::exception& e) {
        why = std::string("plugin worker answered badly while loading the plugin: ") + e.what();
        reap(w, true);
        return {};
    }
    return w;
}

// A worker for p: from the sealed copy its identity was hashed from (every plugin the host loaded has one).
Worker spawn(const LoadedPlugin& p, std::string& why) {
    const int fd = p.image_fd >= 0 ? p.image_fd : ::open(p.path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        why = "cannot open " + p.path.string() + ": " + std::strerror(errno);
        return {};
    }
    Worker w = spawn(p.path, fd, why);
    if (fd != p.image_fd) ::close(fd);
    if (w.pid < 0) why = "plugin worker cannot load the plugin: " + why;
    return w;
}

class Pool {
  public:
    Pool() = default;
    Pool(const Pool&) = delete;
    Pool& operator=(const Pool&) = delete;
    // At exit: idle workers see their socket close and leave; reaping them hands their CPU time to whoever
    // waits for assetforge, and leaves no orphans behind.
    ~Pool() {
        for (Worker& w : idle_) reap(w, false);
    }
    // A live worker, or one with pid -1 and `why` set.
    Worker acquire(const LoadedPlugin& p, std::string& why) {
        std::unique_lock lock(m_);
        const int limit =
            std::max(1, settings().workers > 0 ? settings().workers : int(std::thread::hardware_concurrency()));
        cv_.wait(lock, [&] { return !idle_.empty() || live_ < limit; });
        if (!idle_.empty()) {
            Worker w = idle_.back();
            idle_.pop_back();
            return w;
        }
        ++live_;
        lock.unlock();
        Worker w = spawn(p, why);
        if (w.pid < 0) lost();
        return w;
    }
    void give_back(Worker w) {
        std::lock_guard lock(m_);
        idle_.push_back(w);
        cv_.notify_one();
    }
    void lost() {
        std::lock_guard lock(m_);
        --live_;
        cv_.notify_one();
    }
    void end_idle() {
        std::lock_guard lock(m_);
        for (Worker& w : idle_) reap(w, false);
        live_ -= int(idle_.size());
        idle_.clear();
        cv_.notify_all();
    }

  private:
    std::mutex m_;
    std::condition_variable cv_;
    std::vector<Worker> idle_;
    int live_ = 0;
};

struct Pools {
    std::mutex m;
    std::map<std::string, std::unique_ptr<Pool>> by_path;
};

Pools& pools() {
    static Pools all;
    return all;
}

Pool& pool_of(const LoadedPlugin& p) {
    Pools& all = pools();
    std::lock_guard lock(all.m);
    auto& slot = all.by_path[p.path.string()];
    if (!slot) slot = std::make_unique<Pool>();
    return *slot;
}

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", s);
    return buf;
}

} // namespace

void end_idle_workers() {
    Pools& all = pools();
    std::lock_guard lock(all.m);
    for (auto& [path, pool] : all.by_path) pool->end_idle();
}

CallOutcome call_once(const std::filesystem::path& library, int image_fd, Op op, const std::vector<uint8_t>& body,
                      double seconds, std::string& confinement) {
    CallOutcome out;
    out.status = AF_ERR_INTERNAL;
    Worker w = spawn(library, image_fd, out.failure, &confinement);
    if (w.pid < 0) return out;
    Printed printed; // what it printed is of no call's action: dropped with the worker
    if (!send_message(w.sock, op, body)) {
        out.failure = "plugin worker " + reap(w, true) + " before it was asked";
        return out;
    }
    pollfd pfd{w.sock, POLLIN, 0};
    Message m;
    const int n = ::poll(&pfd, 1, int(seconds * 1000));
    if (n <= 0) {
        const std::string ended = reap(w, true);
        out.timed_out = n == 0;
        out.failure = n == 0 ? "plugin worker did not answer within " + seconds_text(seconds) + " s; stopped it"
                             : "plugin worker " + ended;
        return out;
    }
    if (!recv_message(w.sock, m) || m.op != Op::Reply) {
        close_fds(m.fds);
        out.failure = "plugin worker " + reap(w, true) + " instead of answering";
        return out;
    }
    reap(w, true, &printed);
    out.ok = true;
    out.reply = std::move(m);
    return out;
}

CallOutcome call_worker(const LoadedPlugin& plugin, Op op, const std::vector<uint8_t>& body,
                        const std::vector<int>& fds, const std::string& what,
                        const std::function<void(Message&)>& on_note) {
    CallOutcome out;
    const std::string who = "plugin '" + plugin.name + "'";
    Pool& pool = pool_of(plugin);
    std::string why;
    Worker w = pool.acquire(plugin, why);
    if (w.pid < 0) {
        out.status = AF_ERR_INTERNAL;
        out.failure = who + ": " + why;
        return out;
    }
    Printed printed;
    auto fail = [&](int status, std::string text, bool kill_first) {
        const std::string ended = reap(w, kill_first, &printed);
        pool.lost();
        printed.deliver(on_note);
        out.status = status;
        out.failure = text.empty() ? who + " " + ended + " in " + what : std::move(text);
        return out;
    };
    if (!send_message(w.sock, op, body, fds)) return fail(AF_ERR_INTERNAL, "", false);
    const double action_limit = settings().action_timeout;
    const bool probe = op == Op::Probe;
    const double limit =
        probe && !(action_limit > 0 && action_limit < kProbeTimeoutSeconds) ? kProbeTimeoutSeconds : action_limit;
    const std::string limit_source = probe && limit == kProbeTimeoutSeconds ? "" : " (--action-timeout)";
    const auto deadline =
        Clock::now() + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(limit));
    for (;;) {
        pollfd pfd[2] = {{w.sock, POLLIN, 0}, {w.printed, POLLIN, 0}};
        int n = ::poll(pfd, 2, 100); // wakes to notice Ctrl-C and the deadline
        if (n < 0 && errno != EINTR) return fail(AF_ERR_INTERNAL, "", true);
        if (n > 0 && pfd[1].revents) printed.drain(w.printed);
        if (n > 0 && (pfd[1].revents & POLLHUP) && !pfd[0].revents) {
            // Both of its standard streams closed: keep polling the socket alone, or poll would return at once.
            ::close(w.printed);
            w.printed = -1;
        }
        if (n <= 0 || !pfd[0].revents) {
            if (host::cancel_requested()) return fail(AF_ERR_CANCELLED, who + ": " + what + " cancelled", true);
            if (limit > 0 && Clock::now() >= deadline) {
                out.timed_out = true;
                return fail(AF_ERR_INTERNAL,
                            who + (probe ? " did not answer " : " did not finish ") + what + " within " +
                                seconds_text(limit) + " s" + limit_source + "; stopped it",
                            true);
            }
            continue;
        }
        Message m;
        if (!recv_message(w.sock, m)) return fail(AF_ERR_INTERNAL, "", false);
        if (m.op == Op::Reply) {
            printed.drain(w.printed);
            pool.give_back(w);
            printed.deliver(on_note);
            out.ok = true;
            out.reply = std::move(m);
            return out;
        }
        try {
            on_note(m);
        } catch (...) {
        }
        close_fds(m.fds);
    }
}

} // namespace af::host::isolation
