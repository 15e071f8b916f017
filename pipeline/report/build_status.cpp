#include "report/build_status.hpp"

#include "assetforge/atomic_file.hpp"
#include "base/name_text.hpp"
#include "base/user_words.hpp"
#include "report/html_report.hpp"
#include "report/junit_report.hpp"
#include "report/report_images.hpp"

#include <nlohmann/json.hpp>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <tuple>

namespace af::report {
using base::ActionStatus;

namespace {

// The report's "metrics" of an action: each key present only when a step reported it.
nlohmann::json results_json(const base::StepResults& r) {
    nlohmann::json j = nlohmann::json::object();
    if (!r.warnings.empty()) j["warnings"] = r.warnings;
    if (!r.warnings_from.empty()) j["warnings_from"] = r.warnings_from;
    if (!r.plugin_log.empty()) j["plugin_log"] = r.plugin_log;
    if (!r.format.empty()) j["format"] = r.format, j["format_reason"] = r.format_reason;
    if (!r.note.empty()) j["note"] = r.note;
    if (r.normal_map) j["normal_map"] = r.normal_map_text();
    if (r.psnr_rgb) j["psnr_rgb"] = *r.psnr_rgb;
    if (r.psnr_rgb_alpha_weighted) j["psnr_rgb_alpha_weighted"] = *r.psnr_rgb_alpha_weighted;
    if (r.zip_entries) j["zip_entries"] = *r.zip_entries;
    if (r.zip_bytes) j["zip_bytes"] = *r.zip_bytes;
    if (r.zip_unchanged_left_out) j["zip_unchanged_left_out"] = *r.zip_unchanged_left_out;
    if (r.zip_reused) j["zip_reused"] = *r.zip_reused;
    if (r.kept_existing_outputs) j["kept_existing_outputs"] = r.kept_existing_outputs;
    return j;
}

} // namespace

BuildStatus::BuildStatus(const base::BuildOptions& opt, std::ostream& out, std::ostream& err)
    : opt_(opt), out_(out), err_(err), colour_err_(&err == &std::cerr && colour(2)),
      progress_(out, mode(), &out == &std::cout && colour(1), std::chrono::milliseconds(opt.heartbeat_ms)) {}

// --color=always|never, or on a terminal unless NO_COLOR (no-color.org) or TERM=dumb.
bool BuildStatus::colour(int fd) const {
    if (opt_.color >= 0) return opt_.color == 1;
    const char* no = std::getenv("NO_COLOR");
    const char* term = std::getenv("TERM");
    return isatty(fd) && !(no && *no) && !(term && std::string(term) == "dumb");
}

Progress::Mode BuildStatus::mode() const {
    if (opt_.quiet) return Progress::Mode::Quiet;
    if (opt_.progress == 1) return Progress::Mode::Terminal;
    if (opt_.progress == 0) return Progress::Mode::Plain;
    return (&out_ == &std::cout && isatty(1)) ? Progress::Mode::Terminal : Progress::Mode::Plain;
}

bool BuildStatus::add(base::ActionResult r) {
    const bool failed = r.status == ActionStatus::Failed;
    const bool loud = base::ran(r.status) || r.status == ActionStatus::NotRun;
    if (loud) progress_.finished(r.job + ": " + r.input, base::ran(r.status), failed);
    // What decided a normal map, and what the action discarded: said where
    // it happened, not only in a report nobody opens.
    if (base::ran(r.status) && opt_.explain && r.results.normal_map)
        progress_.line("explain: " + r.job + ": " + r.input + ": normal map: " + r.results.normal_map_text());
    // An up-to-date action's outputs lost what they lost when they were made:
    // a no-op build must not pass where a clean one fails.
    if (base::ran(r.status) || r.status == ActionStatus::UpToDate)
        for (const auto& w : r.results.warning_lines()) {
            ++summary_.warnings;
            summary_.warnings_fail |= opt_.warnings_as_errors;
            const std::string text =
                std::string(opt_.warnings_as_errors ? "error" : "warning") + ": " + r.job + ": " + r.input + ": " + w;
            if (!base::ran(r.status) && !opt_.repeat_kept_warnings) continue;
            // -q prints what needs attention only, and this does; `status --json` keeps its standard output JSON.
            if (opt_.quiet || opt_.status_json)
                err_ << base::printable_name(text) << "\n";
            else
                progress_.line(text);
        }
    switch (r.status) {
    case ActionStatus::Built:
        ++summary_.built;
        break;
    case ActionStatus::Cached:
        ++summary_.cached;
        break;
    case ActionStatus::UpToDate:
        ++summary_.up_to_date;
        break;
    case ActionStatus::Failed:
        ++summary_.failed;
        break;
    case ActionStatus::Removed:
    case ActionStatus::WouldRemove:
        ++summary_.removed;
        break;
    case ActionStatus::NotRun:
        ++summary_.not_run;
        break;
    case ActionStatus::Skipped:
        ++summary_.skipped;
        break;
    case ActionStatus::WouldRun:
    case ActionStatus::WouldFetch:
        break;
    }
    summary_.actions.push_back(std::move(r));
    return loud;
}

void BuildStatus::note(const std::string& text) {
    if (!opt_.quiet) progress_.line(text);
}

void BuildStatus::note_removal(const std::string& text) {
    if (opt_.dry_run && !opt_.explain) return;
    note(text);
}

void BuildStatus::explain(const base::ActionResult& r) {
    if (opt_.explain) progress_.line("explain: " + r.job + ": " + r.input + ": " + r.reason);
}

void BuildStatus::write_report(const load::Pipeline& p, double secs, const std::string& file) const {
    if (file.size() > 4 && file.compare(file.size() - 4, 4, ".xml") == 0)
        return sdk::write_file_atomic(file, junit_xml(summary_, secs));
    if (is_html_report(file))
        return sdk::write_file_atomic(file, html_report(summary_, p.file.string(), secs, p.root,
                                                        opt_.report_images ? report_images_href(file) : ""));
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& a : summary_.actions) {
        nlohmann::json j = {{"job", a.job},
                            {"key", a.key},
                            {"status", base::to_string(a.status)},
                            {"reason", a.reason},
                            {"duration_ms", a.duration_ms}};
        base::put_name(j, "input", a.input);
        base::put_names(j, "inputs", a.inputs);
        base::put_names(j, "outputs", a.outputs);
        if (!a.error.empty()) j["error"] = {{"step", a.failed_step}, {"message", a.error}};
        if (!a.results.empty()) j["metrics"] = results_json(a.results);
        actions.push_back(std::move(j));
    }
    nlohmann::json doc = {{"seconds", secs},
                          {"built", summary_.built},
                          {"cached", summary_.cached},
                          {"up_to_date", summary_.up_to_date},
                          {"failed", summary_.failed},
                          {"removed", summary_.removed},
                          {"not_run", summary_.not_run},
                          {"skipped", summary_.skipped},
                          {"cancelled", summary_.cancelled},
                          {"warnings", summary_.warnings},
                          {"actions", actions}};
    base::put_name(doc, "pipeline", p.file.string());
    sdk::write_file_atomic(file, base::json_text(doc, 1));
}

void BuildStatus::print_summary(const load::Pipeline& p, double secs) {
    std::vector<const base::ActionResult*> failures;
    for (const auto& a : summary_.actions)
        if (a.status == ActionStatus::Failed) failures.push_back(&a);
    std::sort(failures.begin(), failures.end(),
              [](auto* a, auto* b) { return std::tie(a->job, a->input) < std::tie(b->job, b->input); });
    if (!failures.empty()) {
        err_ << (colour_err_ ? "\033[1;31m" : "") << failures.size()
             << " action(s) failed:" << (colour_err_ ? "\033[0m" : "") << "\n";
        for (auto* f : failures)
            err_ << "  "
                 << base::printable_name(f->job + ": " + f->input + ": step '" + f->failed_step + "': " + f->error)
                 << "\n";
    }
    if (summary_.cancelled) err_ << "build cancelled: finished outputs are kept, nothing partial was written\n";
    if (summary_.warnings_fail)
        err_ << summary_.warnings << " warning(s) treated as errors (--warnings-as-errors): information was discarded; "
             << "the outputs are written, the exit code fails\n";
    if (summary_.remote_cache_fail)
        err_ << "the remote cache failed and it is required (--remote-cache-required): the outputs are written, "
             << "the exit code fails\n";
    if (opt_.quiet) return;
    if (opt_.dry_run) return print_status(p);
    char buf[64];
    snprintf(buf, sizeof buf, "%.2fs", secs);
    out_ << summary_.built << " built, ";
    if (summary_.cached || !opt_.remote_cache.empty()) out_ << summary_.cached << " from cache, ";
    out_ << summary_.up_to_date << " up to date, " << summary_.failed << " failed, " << summary_.removed << " removed";
    if (summary_.warnings) out_ << ", " << summary_.warnings << " warning(s)";
    if (summary_.not_run) out_ << ", " << summary_.not_run << " not run";
    if (opt_.shard_count)
        out_ << ", " << summary_.skipped << " left to other shards (shard " << opt_.shard_index << "/"
             << opt_.shard_count << ")";
    out_ << " (" << buf << ")\n";
}

// `status`: per job, how many actions would run and why (files only with
// -v, which explains each), or every action as JSON: a tree of 8,000 files
// is a few lines, not 8,000.
void BuildStatus::print_status(const load::Pipeline& p) {
    size_t would = 0, fetch = 0;
    for (const auto& a : summary_.actions) {
        would += a.status == ActionStatus::WouldRun || a.status == ActionStatus::WouldFetch;
        fetch += a.status == ActionStatus::WouldFetch;
    }
    if (opt_.status_json) {
        nlohmann::json actions = nlohmann::json::array();
        for (const auto& a : summary_.actions) {
            nlohmann::json j = {{"job", a.job}, {"status", base::to_string(a.status)}, {"reason", a.reason}};
            base::put_name(j, "input", a.input);
            actions.push_back(std::move(j));
        }
        nlohmann::json doc = {{"would_run", would},
                              {"from_cache", fetch},
                              {"up_to_date", summary_.up_to_date},
                              {"stale_to_remove", summary_.removed},
                              {"actions", actions}};
        out_ << base::json_text(doc, 1) << "\n";
        return;
    }
    std::map<std::string, std::map<std::string, size_t>> by_job; // job → reason → count
    std::map<std::string, size_t> current, cached;
    for (const auto& a : summary_.actions) {
        if (a.status == ActionStatus::WouldRun || a.status == ActionStatus::WouldFetch)
            ++by_job[a.job][a.reason];
        else if (a.status == ActionStatus::UpToDate)
            ++current[a.job];
        else if (a.status == ActionStatus::WouldRemove)
            ++by_job[a.job]["stale output to remove"];
        if (a.status == ActionStatus::WouldFetch) ++cached[a.job];
    }
    for (const auto& j : p.jobs) {
        auto it = by_job.find(j.name);
        const size_t up = current.count(j.name) ? current[j.name] : 0;
        if (it == by_job.end() && !up) continue;
        std::string line = "  " + j.name + ":";
        size_t n = 0;
        std::string why;
        if (it != by_job.end())
            for (const auto& [reason, count] : it->second) {
                n += count;
                why += (why.empty() ? "" : "; ") + std::to_string(count) + " " + reason;
            }
        if (n) line += " " + std::to_string(n) + " would run (" + why + ")";
        if (cached.count(j.name)) line += ", " + std::to_string(cached[j.name]) + " of them from the remote cache";
        if (up) line += std::string(n ? "," : "") + " " + std::to_string(up) + " up to date";
        out_ << base::printable_name(line) << "\n";
    }
    out_ << would << " action(s) would run";
    if (!opt_.remote_cache.empty()) out_ << " (" << fetch << " from the remote cache)";
    out_ << ", " << summary_.up_to_date << " up to date, " << summary_.removed << " stale to remove"
         << (opt_.explain ? "" : " (-v lists them)") << "\n";
}

} // namespace af::report
