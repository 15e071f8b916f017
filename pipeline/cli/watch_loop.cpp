#include "cli/watch_loop.hpp"

#include "assetforge/user_text.hpp"
#include "cli/file_watcher.hpp"
#include "cli/watch_changes.hpp"
#include "cli/watch_plan.hpp"
#include "engine/build.hpp"
#include "engine/build_session.hpp"
#include "host/host_services.hpp"
#include "host/isolation/worker_pool.hpp"
#include "host/probe_failures.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>

namespace af::cli {
namespace {

using Clock = std::chrono::steady_clock;

std::atomic<int> g_signal{0}; // lock-free, so safe in a signal handler
int g_wake_write = -1;

void on_signal(int sig) {
    // A second one leaves at once, as in `build`: outputs are atomic and the
    // state database loses at most its last batch.
    if (g_signal.exchange(sig)) _exit(130);
    host::request_cancel(); // a running build stops between steps
    const char c = 1;
    [[maybe_unused]] ssize_t n = ::write(g_wake_write, &c, 1); // wakes the wait for changes
}

// SIGINT/SIGTERM handlers and the pipe they wake the loop through, for the loop's lifetime.
class Signals {
  public:
    Signals() {
        if (::pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0) throw std::runtime_error("cannot create a pipe");
        g_wake_write = fds_[1];
        struct sigaction sa {};
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(SIGINT, &sa, &old_int_);
        sigaction(SIGTERM, &sa, &old_term_);
    }
    ~Signals() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGTERM, &old_term_, nullptr);
        ::close(fds_[0]);
        ::close(fds_[1]);
    }
    Signals(const Signals&) = delete;
    Signals& operator=(const Signals&) = delete;
    int wake_fd() const { return fds_[0]; }

  private:
    int fds_[2] = {-1, -1};
    struct sigaction old_int_ {};
    struct sigaction old_term_ {};
};

void merge(WatchEvents& into, WatchEvents&& more) {
    into.paths.merge(more.paths);
    into.new_folders.merge(more.new_folders);
    into.gone_folders.merge(more.gone_folders);
    if (into.rescan.empty()) into.rescan = std::move(more.rescan);
    into.woken = into.woken || more.woken;
    if (into.first == Clock::time_point{}) into.first = more.first;
}

std::string counts(const base::BuildSummary& s) {
    std::string t;
    auto add = [&](size_t n, const char* what) {
        if (n) t += (t.empty() ? "" : ", ") + std::to_string(n) + " " + what;
    };
    add(s.built, "built");
    add(s.cached, "from the remote cache");
    add(s.failed, "failed");
    add(s.removed, "removed");
    if (s.plan_exit) t += (t.empty() ? "" : ", ") + std::string("the plan was refused");
    if (s.cancelled) t += (t.empty() ? "" : ", ") + std::string("cancelled");
    return t.empty() ? "up to date" : t;
}

class WatchLoop {
  public:
    WatchLoop(const PipelineLoader& load, const WatchOptions& w, int wake_fd)
        : load_(load), w_(w), wake_fd_(wake_fd), watcher_(w.poll, w.poll_ms) {}

    int run() {
        cur_ = load_();
        if (!cur_) return 2;
        session_ = std::make_unique<engine::BuildSession>(cur_->p, cur_->steps);
        plan_.emplace(cur_->p, cur_->opt);
        plan_->watch_plugins(w_.plugin_files);
        // Watching starts before the first build, so a save during it is not missed.
        watcher_.watch(plan_->roots(), plan_->skip());
        build(nullptr, Clock::now());
        say("watching " + roots_text() + " by " + watcher_.mechanism() + "; Ctrl-C stops");
        std::string last_mechanism = watcher_.mechanism();
        while (!g_signal) {
            WatchEvents ev = collect();
            if (g_signal) break;
            if (ev.empty()) continue;
            if (!ev.rescan.empty()) watcher_.watch(plan_->roots(), plan_->skip());
            start_again_if_plugin_changed(ev);
            reload_if_changed(ev);
            if (watcher_.polling() && watcher_.mechanism() != last_mechanism) {
                last_mechanism = watcher_.mechanism();
                say("now " + last_mechanism);
            }
            WatchChanges changes(ev, *plan_);
            if (changes.empty() && ev.rescan.empty()) continue; // only the build's own writes, or noise
            build(&changes, ev.first, ev.rescan);
        }
        return g_signal == SIGINT ? 130 : 0;
    }

  private:
    std::string roots_text() const {
        std::string t;
        for (const auto& r : plan_->roots()) {
            const std::string rel = plan_->rel(r.dir.native());
            t += (t.empty() ? "" : ", ") + sdk::printable(rel == "/" ? rel : rel + "/");
        }
        return t;
    }

    void say(const std::string& line) { std::cout << "assetforge watch: " << line << std::endl; }

    // The first change, then whatever follows until the tree is quiet for
    // debounce_ms (at most a second, so a steady stream still builds).
    WatchEvents collect() {
        WatchEvents ev = watcher_.wait(-1, wake_fd_);
        const auto until = Clock::now() + std::chrono::seconds(1);
        while (!ev.woken && !ev.empty() && Clock::now() < until) {
            WatchEvents more = watcher_.wait(w_.debounce_ms, wake_fd_);
            if (more.empty() && !more.woken) break;
            merge(ev, std::move(more));
        }
        return ev;
    }

    // A plugin's file changed: this process goes on running the copy it loaded (and hashed), so the outputs the new
    // plugin would make would wait until watch is started again. It starts itself again instead, with the same
    // command line: the new process loads the plugin now on disk, and its first build rebuilds what the old copy
    // made whenever the identity differs. When exec fails, the loaded copy stays in charge and says so.
    void start_again_if_plugin_changed(WatchEvents& ev) {
        auto changed = std::find_if(ev.paths.begin(), ev.paths.end(),
                                    [&](const std::string& p) { return plan_->is_plugin_file(p); });
        if (changed == ev.paths.end()) return;
        say("plugin " + sdk::printable(plan_->rel(*changed)) + " changed: starting again to load it");
        host::isolation::end_idle_workers();
        std::fflush(nullptr);
        std::ifstream in("/proc/self/cmdline", std::ios::binary);
        std::vector<std::string> args;
        for (std::string a; std::getline(in, a, '\0');) args.push_back(a);
        std::vector<char*> argv;
        for (auto& a : args) argv.push_back(a.data());
        argv.push_back(nullptr);
        if (!args.empty()) ::execv("/proc/self/exe", argv.data());
        say(std::string("cannot start again (") + std::strerror(errno) +
            "); still running the plugins loaded at the start: stop and start watch to load the new one");
        for (auto it = ev.paths.begin(); it != ev.paths.end();)
            it = plan_->is_plugin_file(*it) ? ev.paths.erase(it) : std::next(it);
    }

    // A changed pipeline (or include) is loaded again; one that does not load
    // leaves the previous one in charge, and is not itself a change to build.
    void reload_if_changed(WatchEvents& ev) {
        bool changed = false;
        for (const auto& p : ev.paths) changed = changed || plan_->is_pipeline_file(p);
        if (!changed) return;
        auto next = load_();
        if (!next) {
            say("the pipeline has errors (above); still watching with the previous one");
            for (auto it = ev.paths.begin(); it != ev.paths.end();)
                it = plan_->is_pipeline_file(*it) ? ev.paths.erase(it) : std::next(it);
            return;
        }
        WatchPlan next_plan(next->p, next->opt);
        next_plan.watch_plugins(w_.plugin_files);
        next_plan.learn(last_);
        session_.reset(); // it refers to the pipeline it was made for
        cur_ = std::move(next);
        session_ = std::make_unique<engine::BuildSession>(cur_->p, cur_->steps);
        plan_.emplace(std::move(next_plan));
        watcher_.watch(plan_->roots(), plan_->skip());
        say("pipeline reloaded");
    }

    void build(const WatchChanges* changes, Clock::time_point since, const std::string& rescan = {}) {
        base::BuildOptions opt = cur_->opt;
        opt.exiting_after = false; // the process goes on: the next build starts from a fresh state load
        host::settings().threads = opt.threads;
        if (changes) {
            // A rebuild says one line; --explain and -v still say everything.
            opt.quiet = opt.quiet || !(opt.explain || opt.verbose);
            opt.repeat_kept_warnings = false; // the first build said them; a save prints only its own
            opt.input_changes = [changes](const std::vector<std::string>& in) { return changes->why(in); };
        }
        // A save of files the last build read: only their actions (the session builds in full when it cannot).
        try {
            host::forget_probe_failures(); // each build says a plugin's failed probe once again
            last_ = changes && rescan.empty() ? session_->build_changed(opt, changes->contents_only())
                                              : session_->build(opt);
        } catch (const std::exception& e) {
            std::cerr << "assetforge: " << sdk::error_line(cur_->p.file.string(), e) << std::endl;
            last_ = {};
            last_.failed = 1;
        }
        // From the first event of the burst to the outputs (and --report) in place.
        const double took = std::chrono::duration<double>(Clock::now() - since).count();
        plan_->learn(last_, session_->narrowed());
        if (!changes || g_signal) return;
        char secs[32];
        std::snprintf(secs, sizeof secs, "%.3f", took);
        std::string what = changes->describe();
        if (!rescan.empty()) what = "full rescan (" + rescan + ")" + (what.empty() ? "" : ": " + what);
        say(what + " → " + counts(last_) + " in " + secs + " s from the change");
    }

    const PipelineLoader& load_;
    WatchOptions w_;
    int wake_fd_;
    FileWatcher watcher_;
    std::unique_ptr<LoadedPipeline> cur_;
    std::unique_ptr<engine::BuildSession> session_; // records and globs kept from one build to the next
    std::optional<WatchPlan> plan_;
    base::BuildSummary last_;
};

} // namespace

int run_watch(const PipelineLoader& load, const WatchOptions& w) {
    Signals signals;
    WatchLoop loop(load, w, signals.wake_fd());
    return loop.run();
}

} // namespace af::cli
