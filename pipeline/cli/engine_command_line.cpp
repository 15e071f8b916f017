#include "cli/engine_command_line.hpp"

#include "assetforge/user_text.hpp"

#include "base/glob.hpp"
#include "cli/command.hpp"
#include "cli/isolation_options.hpp"
#include "cli/load_interrupt.hpp"
#include "cli/memory_budget_option.hpp"
#include "cli/noop_answer.hpp"
#include "cli/watch_loop.hpp"
#include "engine/build.hpp"
#include "engine/shard.hpp"
#include "host/host_services.hpp"
#include "host/isolation/crash_handler.hpp"
#include "host/load_failures.hpp"
#include "load/config_errors.hpp"
#include "load/job_selection.hpp"
#include "report/html_report.hpp"
#include "report/pictures_option.hpp"
#include "steps/pipeline_steps.hpp"
#include "steps/texture_steps.hpp"

#include <boost/program_options.hpp>

#include <malloc.h>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <unistd.h>

namespace af::cli {
namespace po = boost::program_options;
namespace fs = std::filesystem;

namespace {

std::atomic<int> g_interrupts{0}; // lock-free, so safe in a signal handler

void on_interrupt(int) {
    // Second Ctrl-C: leave now. Outputs are atomic, so nothing partial remains;
    // the state database is WAL-protected and loses at most the last batch.
    if (g_interrupts++) _exit(130);
    host::request_cancel();
}

struct Parsed {
    fs::path file = "pipeline.yaml";
    load::Defines defines;
    std::vector<std::string> jobs;
    base::BuildOptions opt;
};

// The command line's words as given, before they are checked.
struct Flags {
    std::vector<std::string> defines, allow_env, allow_path;
    std::string state_dir, shard, color = "auto", report_pictures = "full";
    bool overwrite_edited = false, orphans = false, verbose = false, dry_run = false;
    bool remote_cache_required = false;
    WatchOptions watch; // `watch` only
};

const char* usage_line(CommandKind k) {
    switch (k) {
    case CommandKind::Build:
        return "usage: assetforge build [pipeline.yaml] [--job NAME]… [options]";
    case CommandKind::Status:
        return "usage: assetforge status [pipeline.yaml] [--job NAME]… [options]";
    case CommandKind::Clean:
        return "usage: assetforge clean [pipeline.yaml] [--job NAME]…";
    case CommandKind::Watch:
        return "usage: assetforge watch [pipeline.yaml] [--job NAME]… [build options]";
    }
    return "";
}

// The options of `build` and `status`, which `clean` does not take.
void add_build_options(po::options_description& desc, Parsed& a, Flags& f) {
    desc.add_options()("jobs,j", po::value<int>(&a.opt.threads), "worker threads (default: all cores)")(
        "explain", po::bool_switch(&a.opt.explain),
        "print why each action runs")("quiet,q", po::bool_switch(&a.opt.quiet), "print only failures")(
        "fail-fast", po::bool_switch(&a.opt.fail_fast), "stop starting actions after the first failure")(
        "warnings-as-errors", po::bool_switch(&a.opt.warnings_as_errors),
        "exit 1 when an action discarded information (alpha, a channel, bit depth): for CI")(
        "keep-going,k", "keep going after failures (the default)")("trace", po::value<std::string>(&a.opt.trace_file),
                                                                   "write Chrome trace events (Perfetto) to FILE")(
        "report", po::value<std::string>(&a.opt.report_file),
        "write a record of every action to FILE: JSON; JUnit XML for FILE.xml (CI test reports); a self-contained "
        "page for FILE.html");
    add_memory_budget_option(desc, "MiB the running actions may hold together (an action estimated above it fails)");
    desc.add_options()(
        "remote-cache", po::value<std::string>(&a.opt.remote_cache),
        "share results through a Bazel HTTP remote cache at URL (also `remote_cache:` in the pipeline, or "
        "ASSETFORGE_REMOTE_CACHE); credentials from ASSETFORGE_REMOTE_CACHE_TOKEN, _USER/_PASSWORD or a netrc")(
        "report-pictures", po::value<std::string>(&f.report_pictures)->default_value("full"),
        "none|thumbs|full[=MAXPX]: with --report FILE.html, pictures of each texture action's source, result and "
        "difference in FILE.html.d/, and PSNR per channel: full size (full=MAXPX: longest side at most MAXPX), "
        "thumbnails only, or none (the page without them, and no decoding for them)")(
        "remote-cache-required", po::bool_switch(&f.remote_cache_required),
        "fail the build when the remote cache fails (CI: a broken cache must not go unnoticed); also "
        "`remote_cache_required: true` in the pipeline")(
        "remote-upload", po::value<bool>(&a.opt.remote_upload)->default_value(true),
        "upload built outputs to the remote cache (false: read only, e.g. for untrusted pull requests)")(
        "shard", po::value<std::string>(&f.shard),
        "run only shard I of N (I/N, from 0): each source file's chain of actions runs in one shard, "
        "gathers run in the build without --shard; share the results through --remote-cache");
}

po::options_description describe_options(CommandKind kind, Parsed& a, Flags& f) {
    po::options_description desc(usage_line(kind));
    desc.add_options()("help,h", "show this help")("file,f", po::value<std::string>(),
                                                   "pipeline file (default pipeline.yaml)")(
        "define,D", po::value<std::vector<std::string>>(&f.defines), "set a variable: -D name=value")(
        "allow-env", po::value<std::vector<std::string>>(&f.allow_env),
        "let the pipeline read environment variable NAME through ${env:NAME} (repeatable; also "
        "ASSETFORGE_ALLOW_ENV=NAME,...); no other is readable")(
        "allow-path", po::value<std::vector<std::string>>(&f.allow_path),
        "let the pipeline read from and write under DIR outside its own folder (repeatable): inputs, includes, "
        "files its steps read and output_root must otherwise lie in the pipeline's folder or a folder given with "
        "-D")("job", po::value<std::vector<std::string>>(&a.jobs),
              kind == CommandKind::Clean ? "only this job (repeatable)"
                                         : "only this job and the jobs it takes inputs from or needs (repeatable)")(
        "state-dir", po::value<std::string>(&f.state_dir),
        "keep the build state in DIR (default: <output_root>/.assetforge)");
    if (kind != CommandKind::Status)
        desc.add_options()("overwrite-edited", po::bool_switch(&f.overwrite_edited),
                           kind == CommandKind::Clean
                               ? "also remove outputs edited since the build wrote them"
                               : "replace outputs that differ from what the build last wrote (discards edits)");
    if (kind == CommandKind::Build)
        desc.add_options()("dry-run,n", po::bool_switch(&f.dry_run),
                           "print what would run and why, as `assetforge status` does; nothing runs");
    if (kind == CommandKind::Build || kind == CommandKind::Watch)
        desc.add_options()("verbose,v", po::bool_switch(&a.opt.verbose),
                           "print each step of each action as it ends, with its time");
    if (kind == CommandKind::Watch)
        desc.add_options()("poll", po::bool_switch(&f.watch.poll),
                           "look for changes every 0.5 s instead of through inotify (network mounts, whose "
                           "changes made on other machines inotify never sees)")(
            "debounce", po::value<int>(&f.watch.debounce_ms)->default_value(f.watch.debounce_ms),
            "milliseconds without a change before a rebuild starts (a burst of saves is one rebuild)");
    if (kind != CommandKind::Clean)
        desc.add_options()("color", po::value<std::string>(&f.color),
                           "auto|always|never: failures in red (auto: on a terminal, unless NO_COLOR is set)");
    if (kind == CommandKind::Status)
        desc.add_options()("verbose,v", po::bool_switch(&f.verbose), "list every action that would run, and why")(
            "json", po::bool_switch(&a.opt.status_json), "every action (job, input, status, reason) as JSON");
    if (kind == CommandKind::Clean)
        desc.add_options()("orphans", po::bool_switch(&f.orphans),
                           "remove instead the outputs that other configurations (other -D values) of this output "
                           "folder recorded");
    if (kind != CommandKind::Clean) add_build_options(desc, a, f);
    if (kind == CommandKind::Build || kind == CommandKind::Watch) add_isolation_options(desc);
    return desc;
}

// The flags' values into the options; an exit code when one is wrong.
std::optional<int> take_values(const po::variables_map& vm, const Flags& f, Parsed& a) {
    if (vm.count("file")) a.file = vm["file"].as<std::string>();
    try {
        const report::PicturesOption pictures = report::parse_pictures_option(f.report_pictures);
        a.opt.report_images = report::is_html_report(a.opt.report_file) && pictures.on;
        a.opt.report_picture_side = pictures.max_side;
    } catch (const std::invalid_argument& e) {
        std::cerr << "assetforge: " << base::printable_name(e.what()) << "\n";
        return 2;
    }
    // "" would be the current folder, which the user did not mean to name.
    for (const auto& dir : f.allow_path)
        if (dir.empty()) {
            std::cerr << "assetforge: --allow-path expects a folder\n";
            return 2;
        }
    for (const auto& d : f.defines) {
        auto eq = d.find('=');
        if (eq == std::string::npos || eq == 0) {
            std::cerr << "assetforge: -D expects name=value, got '" << d << "'\n";
            return 2;
        }
        a.defines.push_back({d.substr(0, eq), d.substr(eq + 1)});
    }
    if (vm.count("memory-budget")) {
        // Every action needs some memory: with none, all of them would fail.
        a.opt.memory_budget = memory_budget_bytes(vm);
        if (a.opt.memory_budget == 0) {
            std::cerr << "assetforge: --memory-budget expects a positive number of MiB\n";
            return 2;
        }
    }
    if (!f.shard.empty()) {
        try {
            auto spec = engine::parse_shard(f.shard);
            a.opt.shard_index = spec.index;
            a.opt.shard_count = spec.count;
        } catch (const std::invalid_argument& e) {
            std::cerr << "assetforge: " << base::printable_name(e.what()) << "\n";
            return 2;
        }
    }
    return std::nullopt;
}

// What else the command line decides, checked; an exit code when something is wrong.
std::optional<int> check_values(const Flags& f, Parsed& a) {
    if (f.color == "always")
        a.opt.color = 1;
    else if (f.color == "never")
        a.opt.color = 0;
    else if (f.color != "auto") {
        std::cerr << "assetforge: --color expects auto, always or never, got '" << f.color << "'\n";
        return 2;
    }
    // How long a piped build may be silent before it says what is running (CI logs; tests shorten it).
    if (const char* hb = std::getenv("ASSETFORGE_HEARTBEAT_MS"); hb && *hb)
        a.opt.heartbeat_ms = std::max(50, std::atoi(hb));
    if (a.opt.threads < 0) {
        std::cerr << "assetforge: -j expects a positive number\n";
        return 2;
    }
    if (!fs::exists(a.file)) {
        std::cerr << "assetforge: " << a.file.string() << ": no such pipeline file\n";
        return 2;
    }
    return std::nullopt;
}

// The pipeline and the step table it is read against; an exit code when it cannot be loaded.
std::optional<int> load(host::PluginRegistry& reg, const Flags& f, const Parsed& a, steps::StepTable& steps,
                        load::Pipeline& p) {
    try {
        EndOnInterruptWhileLoading interruptible;
        steps = steps::pipeline_steps(reg);
        load::EnvAllowList allowed;
        if (const char* env = std::getenv("ASSETFORGE_ALLOW_ENV")) allowed = load::parse_env_allow_list(env);
        for (const auto& names : f.allow_env) allowed.merge(load::parse_env_allow_list(names));
        load::PathAllowList paths;
        for (const auto& dir : f.allow_path) paths.push_back(fs::absolute(dir).lexically_normal());
        // -D paths are the command line's, so relative to the folder the user runs in (like --state-dir's).
        p = load::load_pipeline(a.file, a.defines, steps, allowed, paths, fs::current_path());
    } catch (const steps::StepNameTaken& e) {
        std::cerr << "assetforge: " << base::printable_name(e.what()) << "\n";
        return 2;
    } catch (const base::ConfigError& e) {
        for (const auto& line : load::config_error_lines(e)) std::cerr << line << "\n";
        // A step or option no loaded plugin provides may be a plugin's that failed to load.
        if (const std::string note = host::failed_loads_note(reg); !note.empty())
            std::cerr << "assetforge:" << base::printable_name(note) << "\n";
        return 2;
    }
    if (!f.state_dir.empty()) p.state_dir = fs::absolute(f.state_dir).lexically_normal();
    return std::nullopt;
}

int run_clean(const load::Pipeline& p, const Parsed& a, const Flags& f) {
    for (const auto& j : a.jobs)
        if (!p.job(j)) {
            std::vector<std::string> names;
            for (const auto& job : p.jobs) names.push_back(job.name);
            std::cerr << "assetforge clean: " << base::printable_name(base::not_one_of("job", j, names)) << "\n";
            return 2;
        }
    try {
        auto c = engine::clean_outputs(p, {a.jobs, f.orphans, f.overwrite_edited});
        std::cout << "removed " << c.removed_files << (f.orphans ? " orphaned" : "") << " output(s) of " << c.actions
                  << " action(s)";
        if (c.missing_files) std::cout << " (" << c.missing_files << " already gone)";
        std::cout << "\n";
        for (const auto& r : c.refused)
            std::cerr << "assetforge clean: not removed: " << base::printable_name(r) << "\n";
        return c.refused.empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "assetforge clean: " << sdk::error_line("removing outputs", e) << "\n";
        return 1;
    }
}

// What the build takes from the environment, the pipeline and the loaded plugins.
void complete_build_options(CommandKind kind, host::PluginRegistry& reg, const load::Pipeline& p, const Flags& f,
                            base::BuildOptions& opt) {
    // The command line first, then the environment, then the pipeline file. Credentials come from the
    // environment, so only a URL from the same source gets them (see BuildOptions::remote_cache_from_pipeline).
    if (opt.remote_cache.empty())
        if (const char* env = std::getenv("ASSETFORGE_REMOTE_CACHE"); env && *env) opt.remote_cache = env;
    if (opt.remote_cache.empty() && !p.remote_cache.empty()) {
        opt.remote_cache = p.remote_cache;
        opt.remote_cache_from_pipeline = true;
    }
    opt.remote_cache_required = f.remote_cache_required || p.remote_cache_required;
    opt.dry_run = kind == CommandKind::Status || f.dry_run;
    if (opt.dry_run) opt.explain = f.verbose || opt.explain;
    opt.cancelled = [] { return host::cancel_requested(); };
    opt.keep_on_crash = [](std::function<void()> commit) -> std::shared_ptr<void> {
        return std::make_shared<host::isolation::RescueScope>(std::move(commit));
    };
    opt.tool_identity = [&reg](const std::string& name) -> std::string {
        for (const auto& pl : reg.plugins())
            if (pl->name == name) return plugin_identity(*pl);
        return "";
    };
    std::vector<std::string> ids;
    for (const auto& pl : reg.plugins()) ids.push_back(plugin_identity(*pl));
    std::sort(ids.begin(), ids.end());
    for (const auto& id : ids) opt.plugin_identities += (opt.plugin_identities.empty() ? "" : ";") + id;
}

// The build itself, with Ctrl-C asking it to stop.
int run_with_interrupts(CommandKind kind, const host::PluginRegistry& reg, const load::Pipeline& p,
                        const steps::StepTable& steps, Parsed& a) {
    host::settings().threads = a.opt.threads;
    struct sigaction sa {};
    sa.sa_handler = on_interrupt;
    sigemptyset(&sa.sa_mask);
    struct sigaction old_int = {};
    struct sigaction old_term = {};
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);
    int code;
    a.opt.exiting_after = true; // the CLI returns to main and exits
    // Worker threads allocate from their own malloc arenas, which grow by
    // mprotect in small steps by default: thousands of system calls in a
    // no-op build of 10,000 files. Grow in larger steps.
    mallopt(M_TOP_PAD, 8 << 20);
    base::GlobWitness witness;
    if (kind == CommandKind::Build) {
        forget_noop_record();
        a.opt.glob_witness = &witness;
    }
    try {
        // Kept, not destroyed, for the same reason as exiting_after. Volatile so the store stays and
        // LeakSanitizer still sees the summary as reachable.
        static base::BuildSummary* volatile kept = nullptr;
        kept = new base::BuildSummary(engine::run_build(p, steps, a.opt));
        code = kept->exit_code();
        if (kind == CommandKind::Build) code = record_noop(p, a.opt, *kept, reg, code);
    } catch (const std::exception& e) {
        std::cerr << "assetforge: " << sdk::error_line(a.file.string(), e) << "\n";
        code = 1;
    }
    sigaction(SIGINT, &old_int, nullptr);
    sigaction(SIGTERM, &old_term, nullptr);
    return code;
}

// `watch`: each load (the first, and each time the pipeline changes) gives a
// pipeline, its step table and its builds' options, as `build` would make them.
int run_watch_command(host::PluginRegistry& reg, const po::variables_map& vm, const Flags& f, Parsed& a) {
    const PipelineLoader loader = [&]() -> std::unique_ptr<LoadedPipeline> {
        auto l = std::make_unique<LoadedPipeline>();
        if (load(reg, f, a, l->steps, l->p)) return nullptr;
        if (!vm.count("action-timeout") && l->p.action_timeout > 0)
            host::isolation::settings().action_timeout = l->p.action_timeout;
        try {
            load::select_jobs(l->p, a.jobs);
        } catch (const std::invalid_argument& e) {
            std::cerr << "assetforge watch: " << base::printable_name(e.what()) << "\n";
            return nullptr;
        }
        l->opt = a.opt;
        l->opt.overwrite_edited = f.overwrite_edited;
        complete_build_options(CommandKind::Build, reg, l->p, f, l->opt);
        return l;
    };
    mallopt(M_TOP_PAD, 8 << 20); // as for `build` (run_with_interrupts)
    WatchOptions w = f.watch;
    for (const auto& pl : reg.plugins())
        if (pl->path != "<built-in>") w.plugin_files.push_back(pl->path);
    return run_watch(loader, w);
}

} // namespace

int run_engine_command(CommandKind kind, host::PluginRegistry& reg, const std::vector<std::string>& args) {
    Parsed a;
    Flags f;
    po::options_description desc = describe_options(kind, a, f);
    po::positional_options_description pos;
    pos.add("file", 1);
    po::variables_map vm;
    try {
        po::store(po::command_line_parser(args).options(desc).positional(pos).run(), vm);
        po::notify(vm);
    } catch (const po::error& e) {
        std::cerr << "assetforge: " << base::printable_name(e.what()) << "\n" << desc;
        return 2;
    }
    if (vm.count("help")) {
        std::cout << desc;
        return 0;
    }
    if (auto code = take_values(vm, f, a)) return *code;
    if (auto code = check_values(f, a)) return *code;
    if (kind == CommandKind::Watch && (f.watch.debounce_ms < 0 || f.watch.debounce_ms > 10000)) {
        std::cerr << "assetforge: --debounce expects 0 to 10000 milliseconds\n";
        return 2;
    }
    if (kind == CommandKind::Build || kind == CommandKind::Watch)
        if (std::string why = apply_isolation_options(vm, a.opt.memory_budget, a.opt.threads); !why.empty()) {
            std::cerr << "assetforge: " << why << "\n";
            return 2;
        }
    if (kind == CommandKind::Watch) return run_watch_command(reg, vm, f, a);
    steps::StepTable steps;
    load::Pipeline p;
    if (auto code = load(reg, f, a, steps, p)) return *code;
    if (kind == CommandKind::Build && !vm.count("action-timeout") && p.action_timeout > 0)
        host::isolation::settings().action_timeout = p.action_timeout;
    a.opt.overwrite_edited = f.overwrite_edited;
    if (kind == CommandKind::Clean) return run_clean(p, a, f);
    try {
        load::select_jobs(p, a.jobs);
    } catch (const std::invalid_argument& e) {
        std::cerr << "assetforge " << (kind == CommandKind::Status ? "status" : "build") << ": "
                  << base::printable_name(e.what()) << "\n";
        return 2;
    }
    complete_build_options(kind, reg, p, f, a.opt);
    return run_with_interrupts(kind, reg, p, steps, a);
}

} // namespace af::cli

namespace {

using af::cli::CommandKind;
using af::cli::Context;

// The four commands that run the engine over a pipeline differ only in what they ask of it.
template <CommandKind kind> int run_kind(Context& ctx, const std::vector<std::string>& args) {
    return af::cli::run_engine_command(kind, ctx.registry, args);
}

af::cli::RegisterCommand build_command{"build", "Run the jobs of a pipeline.yaml that are out of date",
                                       run_kind<CommandKind::Build>};
af::cli::RegisterCommand status_command{"status", "Show what a build would run and why, without running it",
                                        run_kind<CommandKind::Status>};
af::cli::RegisterCommand clean_command{"clean", "Remove every output the build state records",
                                       run_kind<CommandKind::Clean>};
af::cli::RegisterCommand watch_command{"watch", "Build, then rebuild what each saved change affects, until Ctrl-C",
                                       run_kind<CommandKind::Watch>};

} // namespace
