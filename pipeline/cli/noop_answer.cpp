#include "cli/noop_answer.hpp"

#include "base/glob.hpp"
#include "base/user_words.hpp"
#include "engine/build/noop_record.hpp"
#include "engine/build_lock.hpp"
#include "engine/param_inputs.hpp"
#include "host/host_services.hpp"
#include "host/plugin_registry.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

namespace af::cli {
namespace fs = std::filesystem;

namespace {

struct CommandLine {
    int64_t started_ns = 0; // coarse: before anything this build depends on was looked at
    std::chrono::steady_clock::time_point t0;
    fs::path record;
    bool verify = false;
    bool expect_noop = false; // verify: the record said so
};

CommandLine& command_line() {
    static CommandLine c;
    return c;
}

std::string absolute_in(const fs::path& root, const std::string& path) {
    const fs::path p(path);
    return (p.is_absolute() ? p : root / p).lexically_normal().native();
}

// What the build depended on; false when a record could not vouch for it.
bool gather_facts(const load::Pipeline& p, const base::BuildOptions& opt, const base::BuildSummary& s,
                  const host::PluginRegistry& reg, engine::NoopFacts& f) {
    if (opt.glob_witness->unsure) return false;
    f.files.push_back(fs::absolute(p.file).lexically_normal().native());
    for (const auto& inc : p.includes) f.files.push_back(inc.native()); // absolute (else no record, below)
    std::error_code ec;
    if (fs::path exe = fs::read_symlink("/proc/self/exe", ec); !ec) f.files.push_back(exe.native());
    for (const auto& pl : reg.plugins())
        if (pl->path.is_absolute()) f.files.push_back(pl->path.lexically_normal().native()); // "<built-in>": the host
    for (const auto& fail : reg.failures()) f.files.push_back(fs::absolute(fail.path).lexically_normal().native());
    if (!std::all_of(f.files.begin(), f.files.end(), [](const std::string& x) { return x[0] == '/'; })) return false;
    for (const auto& d : reg.searched())
        (fs::is_directory(d, ec) ? f.dirs : f.absent).push_back(fs::absolute(d).lexically_normal().native());
    for (const auto& job : p.jobs)
        for (const auto& r : engine::param_reads(job, p.root)) {
            if (r.per_input || r.folder) return false;
            f.files.push_back(r.path.native());
        }
    for (const auto& a : s.actions) {
        for (const auto& in : a.inputs) f.files.push_back(absolute_in(p.root, in));
        for (const auto& out : a.outputs) f.files.push_back(absolute_in(p.root, out));
    }
    f.dirs.insert(f.dirs.end(), opt.glob_witness->dirs.begin(), opt.glob_witness->dirs.end());
    f.absent.insert(f.absent.end(), opt.glob_witness->absent.begin(), opt.glob_witness->absent.end());
    const fs::path state = p.state_dir.empty() ? p.output_root / ".assetforge" : p.state_dir;
    f.state_dir = state;
    // Another configuration's build, a `clean`, a `status` holding the database open: not this record's to judge.
    f.files.push_back((state / "state.db").native());
    f.absent.push_back((state / "state.db-wal").native());
    for (const auto& [name, value] : p.env_read) f.env.emplace_back(name, value);
    f.actions = s.built + s.up_to_date;
    f.quiet = opt.quiet;
    return true;
}

bool clean_run(const base::BuildOptions& opt, const base::BuildSummary& s, int code) {
    return code == 0 && !opt.dry_run && !opt.explain && !opt.verbose && opt.trace_file.empty() &&
           opt.report_file.empty() && !opt.shard_count && opt.remote_cache.empty() && !opt.some_inputs_only &&
           !s.failed && !s.warnings && !s.not_run && !s.skipped && !s.cached && !s.cancelled && !s.plan_exit &&
           !s.remote_cache_fail;
}

bool saying() {
    const char* say = std::getenv("ASSETFORGE_NOOP_RECORDS");
    return say && std::string_view(say) == "say";
}

// Once a build: reading and writing find the same folder wanting.
void say_distrust(const std::string& why) {
    static bool said = false;
    if (why.empty() || said || !saying()) return;
    said = true;
    std::cerr << "assetforge: no-op record not used: " << base::printable_name(why) << "\n" << std::flush;
}

} // namespace

void note_command_line(int argc, char** argv) {
    CommandLine& c = command_line();
    c.started_ns = engine::coarse_now_ns();
    c.t0 = std::chrono::steady_clock::now();
    if (argc < 2 || std::string_view(argv[1]) != "build") return;
    c.record = engine::noop_record_file(engine::noop_key(argc, argv));
    const char* v = std::getenv("ASSETFORGE_VERIFY_NOOP");
    c.verify = v && std::string_view(v) == "1";
}

std::optional<int> answer_from_noop_record() {
    CommandLine& c = command_line();
    std::string distrust;
    auto rec = engine::read_noop_record(c.record, &distrust);
    say_distrust(distrust);
    if (!rec) return std::nullopt;
    std::optional<engine::BuildLock> lock;
    try {
        // As `build` would: wait for one running, then look.
        lock.emplace(
            rec->state_dir, [](const std::string& msg) { std::cerr << "assetforge: " << msg << "\n"
                                                                   << std::flush; },
            [] { return host::cancel_requested(); });
    } catch (const engine::BuildLock::Cancelled&) {
        return 130;
    } catch (const std::exception&) {
        return std::nullopt;
    }
    if (!engine::first_difference(*rec).empty()) return std::nullopt;
    // Tests see which way a build went.
    if (saying()) std::cerr << "assetforge: up to date by the no-op record\n" << std::flush;
    if (c.verify) {
        c.expect_noop = true;
        return std::nullopt;
    }
    if (!rec->quiet) {
        const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - c.t0).count();
        std::printf("0 built, %zu up to date, 0 failed, 0 removed (%.2fs)\n", rec->actions, secs);
    }
    return 0;
}

void forget_noop_record() { engine::forget_noop_record(command_line().record); }

int record_noop(const load::Pipeline& p, const base::BuildOptions& opt, const base::BuildSummary& s,
                const host::PluginRegistry& reg, int code) {
    CommandLine& c = command_line();
    if (c.expect_noop && (s.built || s.removed || s.failed || s.cached || s.not_run || s.warnings || code)) {
        std::cerr << "assetforge: internal error: the no-op record said nothing was to do, but the build built "
                  << s.built << ", removed " << s.removed << ", failed " << s.failed << " (exit " << code << ")\n";
        return 70;
    }
    // What a build wrote or removed is newer than its start, which no record may vouch for (see racy in
    // noop_record.cpp): the next build, with nothing to do, writes it. Not stat'ing every path now keeps a
    // one-file rebuild of a large tree as fast as it was.
    const bool wrote = (s.built || s.removed) && !c.verify;
    engine::NoopFacts facts;
    if (c.record.empty() || wrote || !opt.glob_witness || !clean_run(opt, s, code) ||
        !gather_facts(p, opt, s, reg, facts)) {
        engine::forget_noop_record(c.record);
        return code;
    }
    std::string distrust;
    engine::write_noop_record(c.record, facts, c.started_ns, c.verify, &distrust);
    say_distrust(distrust);
    return code;
}

} // namespace af::cli
