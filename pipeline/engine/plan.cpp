#include "engine/plan.hpp"

#include "base/surface_names.hpp"
#include "engine/parallel_indices.hpp"
#include "engine/reserved_paths.hpp"
#include "load/pattern_overlap.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <unordered_set>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

bool name_only(const base::OutputTemplate& t, bool gather) {
    static const std::set<std::string> kFromName = {"dir", "stem",      "ext",        "name",       "path",
                                                    "job", "input_dir", "input_stem", "input_name", "input_ext"};
    for (const auto& p : t.placeholders())
        if (gather ? p != "job" : !kFromName.count(p)) return false;
    return true;
}

std::map<std::string, std::string> values_for(const std::string& name, const std::string& job) {
    auto v = base::template_values(name, {}, job);
    for (const char* k : {"dir", "stem", "name", "ext"}) v[std::string("input_") + k] = v[k];
    return v;
}

std::string rel(const fs::path& root, const std::string& abs) {
    const std::string& r = root.native();
    if (abs.size() > r.size() && abs.compare(0, r.size(), r) == 0 && abs[r.size()] == '/')
        return abs.substr(r.size() + 1);
    return abs;
}

std::string name_below(const std::string& abs, const std::string& base) {
    if (abs.size() > base.size() && abs.compare(0, base.size(), base) == 0 && abs[base.size()] == '/')
        return abs.substr(base.size() + 1);
    return fs::path(abs).lexically_relative(base).generic_string();
}

// An input pattern as an absolute pattern with a normal fixed part.
std::string absolute_pattern(const fs::path& root, const std::string& p) {
    std::string base = base::glob_base(p);
    std::string rest = base.empty() ? p : p.substr(std::min(p.size(), base.size() + 1));
    if (fs::path(p).is_absolute() && base == "/") rest = p.substr(1);
    fs::path b = fs::path(base).is_absolute() ? fs::path(base) : root / base;
    std::string s = b.lexically_normal().native();
    if (s.empty() || s.back() != '/') s += '/';
    return s + rest;
}

// The output template with the project root in front and its fixed part normal.
base::OutputTemplate absolute_template(const fs::path& root, const std::string& text, const base::OutputTemplate& tpl) {
    std::string prefix = tpl.static_prefix();
    fs::path b = fs::path(prefix).is_absolute() ? fs::path(prefix) : root / prefix;
    std::string s = b.lexically_normal().native();
    std::string escaped;
    for (char c : s) escaped += (c == '{' || c == '}') ? std::string(2, c) : std::string(1, c);
    std::string rest = prefix.empty() ? text : text.substr(std::min(text.size(), prefix.size() + 1));
    if (fs::path(prefix).is_absolute() && prefix == "/") rest = text.substr(1);
    if (escaped.empty() || escaped.back() != '/') escaped += '/';
    return base::OutputTemplate::parse(escaped + rest);
}

// An absolute folder without a trailing slash ("/" for the file system's root).
std::string fixed_folder(std::string dir) {
    while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
    return dir.empty() ? "/" : dir;
}

// Does one of the job's excludes cover every file below `dir`?
bool excluded_folder(const load::Job& j, const fs::path& root, const std::string& dir) {
    std::string r = rel(root, dir);
    for (const auto& ex : j.excludes)
        if (base::glob_match(ex, r + "/\x01") && base::glob_match(ex, r + "/\x01/\x01")) return true;
    return false;
}

} // namespace

std::string Plan::claimant(const std::vector<PlanJob>& jobs, const std::string& path) const {
    auto it = writer.find(path);
    if (it == writer.end()) return "";
    const PlanJob& pj = jobs[it->second.first];
    return pj.job->name + ": " + pj.predicted[it->second.second].second;
}

bool Plan::claimed_by_other(const std::vector<PlanJob>& jobs, const std::string& path, std::string_view who) const {
    auto it = writer.find(path);
    if (it == writer.end()) return false;
    const std::string& job = jobs[it->second.first].job->name;
    const std::string& input = jobs[it->second.first].predicted[it->second.second].second;
    const bool same = who.size() == job.size() + 2 + input.size() && who.starts_with(job) &&
                      who.substr(job.size(), 2) == ": " && who.ends_with(input);
    return !same;
}

void filter_matches(PlanJob& pj, const PlanState& state, const std::unordered_map<std::string, std::string>& claimed) {
    const load::Job& j = *pj.job;
    std::set<std::string> from(j.from.begin(), j.from.end());
    std::unordered_set<std::string> mine;
    for (const auto& [out, _] : pj.predicted) mine.insert(out);
    std::erase_if(pj.matches, [&](const base::GlobMatch& m) {
        if (mine.count(m.path)) return true;
        if (auto it = state.recorded.find(m.path); it != state.recorded.end())
            if (it->second.kind != Recorded::Kind::Own || it->second.job == j.name || from.count(it->second.job))
                return true;
        if (auto it = claimed.find(m.path); it != claimed.end()) {
            std::string k = it->second.substr(0, it->second.find(": "));
            if (k == j.name || from.count(k)) return true;
        }
        return false;
    });
}

std::vector<std::string> empty_patterns(const load::Job& j, const std::vector<size_t>& per_pattern) {
    std::vector<std::string> out;
    if (j.allow_empty) return out;
    for (size_t i = 0; i < j.patterns.size() && i < per_pattern.size(); ++i)
        if (per_pattern[i] == 0)
            out.push_back(j.pos.str() + ": job '" + j.name + "': the input pattern '" + j.patterns[i] +
                          "' matches no file (a typo in a path or a -D value?); set 'allow_empty: true' on the job "
                          "if an empty input is expected");
    return out;
}

namespace {

// make_plan's steps, in order, over one set of jobs.
struct Planning {
    std::vector<PlanJob>& jobs;
    const PlanState& state;
    const fs::path& root;
    Plan plan;
    std::map<std::string, PlanJob*> by_name;
    // Outputs over a job's own inputs: the first one said in full, then how many more (a tree would be 300 lines).
    std::map<std::string, std::pair<std::string, size_t>> over_inputs;
    // Everything a job's `needs` have finished by the time its globs are
    // expanded: those jobs and, transitively, whatever they read from or need.
    std::map<std::string, std::set<std::string>> finished_before;
    // Each template made absolute once, indexed by its fixed folder: a
    // pattern can only reach templates whose folder lies on its own fixed
    // folder's path or below it (pairing every job with every other was
    // quadratic: 17 s for 2,000 jobs).
    std::vector<base::OutputTemplate> abs_tpls;
    std::map<std::string, std::vector<uint32_t>> by_folder; // template's absolute fixed folder → jobs

    void fail(int code, std::string msg) {
        plan.exit_code = std::max(plan.exit_code, code);
        plan.errors.push_back(std::move(msg));
    }
    void order_needs();
    void predict(PlanJob& pj);
    void predict_matches(PlanJob& pj) const;
    void check_writers(const ReservedPaths* reserved);
    void index_templates();
    void reachable(const std::string& pattern_folder, std::vector<uint32_t>& out) const;
    void filter_inputs(PlanJob& pj, std::set<std::string>& reported);
    bool drop_match(PlanJob& pj, const base::GlobMatch& m, size_t& foreign, std::set<std::string>& reported);
    void check_patterns(PlanJob& pj, std::set<std::string>& reported);
    std::optional<std::string> overlap(const PlanJob& pj, const PlanJob& other, const base::OutputTemplate& abs_tpl,
                                       const std::string& ap) const;
    void check_empty();
};

void Planning::order_needs() {
    std::function<void(const std::string&, std::set<std::string>&)> deps = [&](const std::string& n,
                                                                               std::set<std::string>& out) {
        if (!out.insert(n).second) return;
        auto it = by_name.find(n);
        if (it == by_name.end()) return;
        for (const auto& d : it->second->job->from) deps(d, out);
        for (const auto& d : it->second->job->needs) deps(d, out);
    };
    for (auto& pj : jobs)
        for (const auto& n : pj.job->needs) deps(n, finished_before[pj.job->name]);
}

// Outputs known before anything runs (jobs upstream first).
void Planning::predict(PlanJob& pj) {
    const load::Job& j = *pj.job;
    pj.predicted.clear();
    // Its own recorded outputs are never its inputs (a glob over the output folder sees them).
    std::erase_if(pj.matches, [&](const base::GlobMatch& m) {
        auto it = state.recorded.find(m.path);
        return it != state.recorded.end() && it->second.kind == Recorded::Kind::Own && it->second.job == j.name;
    });
    pj.predictable = name_only(pj.tpl, j.is_gather()) && (j.is_gather() || pj.keeps_names);
    for (const auto& f : j.from)
        if (!by_name.count(f) || !by_name[f]->predictable) pj.predictable = false;
    if (!pj.predictable) return;
    if (j.is_gather()) {
        try {
            pj.predicted.push_back({base::resolve_output(pj.tpl, values_for("x", j.name), root).native(), "*"});
        } catch (const std::exception&) {
            pj.predictable = false;
        }
        return;
    }
    std::string out;
    auto add = [&](const std::string& name, const std::string& input_rel) {
        if (pj.tpl.resolve_name_only(name, j.name, root.native(), out)) {
            pj.predicted.push_back({out, input_rel});
            return;
        }
        try {
            pj.predicted.push_back({base::resolve_output(pj.tpl, values_for(name, j.name), root).native(), input_rel});
        } catch (const std::exception&) {
            // An unsafe name: its action fails when it runs, naming it.
        }
    };
    pj.predicted.reserve(pj.matches.size());
    predict_matches(pj);
    for (const auto& f : j.from) {
        const PlanJob& up = *by_name[f];
        for (const auto& [o, _] : up.predicted) add(name_below(o, up.out_base), rel(root, o));
    }
}

// Each globbed input's output, in the inputs' order. Tens of thousands of
// names through one template: split across the cores, which would otherwise
// wait for the plan.
void Planning::predict_matches(PlanJob& pj) const {
    const load::Job& j = *pj.job;
    const bool sets = assembles_surfaces(j);
    std::vector<std::optional<std::pair<std::string, std::string>>> slots(pj.matches.size());
    std::vector<char> member(pj.matches.size(), 0); // a picture of a set (not a vector<bool>: threads write it)
    parallel_indices(pj.matches.size(), 1024, [&](size_t begin, size_t end) {
        std::string out;
        for (size_t i = begin; i != end; ++i) {
            const base::GlobMatch& m = pj.matches[i];
            if (!m.link_escape.empty()) continue;
            // The pictures of one texture's surfaces are one action, with the texture's name and output.
            const auto set = sets ? base::surface_name(m.name) : std::nullopt;
            const std::string& name = set ? set->set : m.name;
            const std::string input = set ? base::surface_name(rel(root, m.path))->set : rel(root, m.path);
            member[i] = set.has_value();
            if (pj.tpl.resolve_name_only(name, j.name, root.native(), out)) {
                slots[i].emplace(out, input);
                continue;
            }
            try {
                slots[i].emplace(base::resolve_output(pj.tpl, values_for(name, j.name), root).native(), input);
            } catch (const std::exception&) {
                // An unsafe name: its action fails when it runs, naming it.
            }
        }
    });
    std::unordered_set<std::string> sets_seen; // a set's output once, not once per picture
    for (size_t i = 0; i < slots.size(); ++i)
        if (slots[i] && (!member[i] || sets_seen.insert(slots[i]->second).second))
            pj.predicted.push_back(std::move(*slots[i]));
}

// Two actions writing one path: which one wins would change between runs.
void Planning::check_writers(const ReservedPaths* reserved) {
    size_t total = 0;
    for (const auto& pj : jobs) total += pj.predicted.size();
    plan.writer.reserve(total);
    for (uint32_t ji = 0; ji < jobs.size(); ++ji) {
        const PlanJob& pj = jobs[ji];
        for (uint32_t k = 0; k < pj.predicted.size(); ++k) {
            const auto& [out, in] = pj.predicted[k];
            if (reserved)
                if (std::string why = reserved->why(out); !why.empty())
                    fail(2, "job '" + pj.job->name + "': the output template '" + pj.job->output + "' would write '" +
                                rel(root, out) + "' (from '" + in + "'), " + why +
                                "; a build never writes it, whatever the flags: change the template");
            auto [it, fresh] = plan.writer.try_emplace(out, ji, k);
            if (fresh) continue;
            const PlanJob& other = jobs[it->second.first];
            const std::string& other_in = other.predicted[it->second.second].second;
            if (&other == &pj && other_in == in) // a picture named as the texture its surfaces' pictures make
                fail(2, "job '" + pj.job->name + "': '" + in + "' is given twice: as one picture and as pictures " +
                            "of its surfaces (" + fs::path(in).stem().string() + ".face0" +
                            fs::path(in).extension().string() + ", …; docs/edit-formats.md); keep one of them");
            else if (&other == &pj)
                fail(2, "job '" + pj.job->name + "': inputs '" + other_in + "' and '" + in + "' both map to '" +
                            rel(root, out) + "' through the output template '" + pj.job->output +
                            "'; add a placeholder that tells them apart (e.g. {ext} or {dir})");
            else
                fail(2, "jobs '" + other.job->name + "' and '" + pj.job->name + "' both write '" + rel(root, out) +
                            "' (from '" + other_in + "' and '" + in + "'); give one of them another output template");
        }
    }
}

void Planning::index_templates() {
    abs_tpls.reserve(jobs.size());
    for (uint32_t ji = 0; ji < jobs.size(); ++ji) {
        abs_tpls.push_back(absolute_template(root, jobs[ji].job->output, jobs[ji].tpl));
        by_folder[fixed_folder(abs_tpls.back().static_prefix())].push_back(ji);
    }
}

void Planning::reachable(const std::string& pattern_folder, std::vector<uint32_t>& out) const {
    // Templates in the pattern's folder or above it...
    for (std::string at = pattern_folder;;) {
        if (auto it = by_folder.find(at); it != by_folder.end())
            out.insert(out.end(), it->second.begin(), it->second.end());
        if (at == "/") break;
        const size_t slash = at.rfind('/');
        at = slash == 0 || slash == std::string::npos ? "/" : at.substr(0, slash);
    }
    // ...and below it.
    const std::string lo = pattern_folder == "/" ? "/" : pattern_folder + "/";
    for (auto it = by_folder.lower_bound(lo); it != by_folder.end(); ++it) {
        if (it->first.compare(0, lo.size(), lo) != 0) break;
        out.insert(out.end(), it->second.begin(), it->second.end());
    }
}

// Drops from the job's matches what is not its input: outputs of jobs it
// takes `from`, other configurations' outputs, outputs it did not declare
// it reads (refused).
void Planning::filter_inputs(PlanJob& pj, std::set<std::string>& reported) {
    size_t foreign = 0;
    std::erase_if(pj.matches, [&](const base::GlobMatch& m) { return drop_match(pj, m, foreign, reported); });
    if (foreign && pj.selected)
        plan.notes.push_back("job '" + pj.job->name + "': skipped " + std::to_string(foreign) +
                             " file(s) that another configuration of this output folder built ('assetforge "
                             "status' lists them; 'assetforge clean --orphans' removes them)");
}

bool Planning::drop_match(PlanJob& pj, const base::GlobMatch& m, size_t& foreign, std::set<std::string>& reported) {
    const load::Job& j = *pj.job;
    if (!m.link_escape.empty()) return false;
    const std::string* producer = nullptr;
    if (auto it = plan.writer.find(m.path); it != plan.writer.end()) {
        producer = &jobs[it->second.first].job->name;
    } else if (auto r = state.recorded.find(m.path); r != state.recorded.end()) {
        if (r->second.kind == Recorded::Kind::Foreign) ++foreign;
        if (r->second.kind == Recorded::Kind::Gone) {
            // Its job is gone but this one reads it: removing it would
            // lose an input. It is a source from now on.
            if (plan.adopted.insert(m.path).second)
                plan.notes.push_back("kept '" + rel(root, m.path) + "', an output of job '" + r->second.job +
                                     "' that is no longer in the pipeline: job '" + j.name +
                                     "' reads it, so it is a source from now on");
            return false;
        }
        if (r->second.kind != Recorded::Kind::Own) return true; // another configuration's
        producer = &r->second.job;
    }
    if (!producer) return false;
    if (*producer == j.name) {
        // Its own planned output, present on disk and matched by its
        // own glob, but not recorded as written by it: maybe a source.
        if (!pj.selected) return true;
        std::string from_input;
        for (const auto& [out, in] : pj.predicted)
            if (out == m.path) from_input = in;
        auto& [first, more] = over_inputs[j.name];
        if (first.empty())
            first = j.output_pos.str() + ": job '" + j.name + "': the output template '" + j.output +
                    "' would write '" + rel(root, m.path) + "' (from input '" + from_input +
                    "'), which exists and is one of the job's own inputs; a build never writes over its "
                    "inputs: choose an output folder or name the inputs do not match, or move the file away";
        else
            ++more;
        return true;
    }
    if (std::find(j.from.begin(), j.from.end(), *producer) != j.from.end()) return true; // `from` delivers it
    if (finished_before[j.name].count(*producer)) return false;
    if (pj.selected && reported.insert(*producer).second)
        fail(2, "job '" + j.name + "' matches '" + rel(root, m.path) + "', an output of job '" + *producer +
                    "', without declaring that it reads that job's outputs (it could run before they are "
                    "written, or read them half-way): add 'needs: [" +
                    *producer + "]' to job '" + j.name + "' (or 'from: " + *producer +
                    "' to take them file by file), or exclude that folder");
    return true;
}

// Whether pattern `ap` (absolute) may read outputs of `other`: nullopt when
// not; else an output it matches ("" when the outputs are known only at run time).
std::optional<std::string> Planning::overlap(const PlanJob& pj, const PlanJob& other,
                                             const base::OutputTemplate& abs_tpl, const std::string& ap) const {
    if (!load::glob_may_match_template(ap, abs_tpl)) return std::nullopt;
    if (!other.predictable) return std::string();
    for (const auto& [out, _] : other.predicted) {
        std::string r = rel(root, out);
        if (!base::glob_match(ap, out)) continue;
        bool excluded = false;
        for (const auto& ex : pj.job->excludes) excluded = excluded || base::glob_match(ex, r);
        if (!excluded) return r;
    }
    return std::nullopt;
}

// Jobs whose output names are known only when they run: decided on the
// patterns themselves. Outputs that do not exist yet (a first build) count
// too: decided on the patterns, then, for jobs whose outputs are known, on the paths.
void Planning::check_patterns(PlanJob& pj, std::set<std::string>& reported) {
    const load::Job& j = *pj.job;
    std::set<std::string> from(j.from.begin(), j.from.end());
    const auto& before = finished_before[j.name];
    std::vector<std::string> abs_patterns;
    std::vector<uint32_t> candidates;
    for (const auto& p : j.patterns) {
        std::vector<std::string> alts;
        try {
            base::expand_braces(p, alts);
        } catch (const std::exception&) {
            alts = {p};
        }
        abs_patterns.push_back(absolute_pattern(root, p));
        for (const auto& a : alts) reachable(fixed_folder(base::glob_base(absolute_pattern(root, a))), candidates);
    }
    std::sort(candidates.begin(), candidates.end());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (uint32_t oi : candidates) {
        const PlanJob& other = jobs[oi];
        if (&other == &pj || from.count(other.job->name) || before.count(other.job->name) ||
            reported.count(other.job->name))
            continue;
        if (excluded_folder(j, root, other.out_base)) continue;
        for (size_t pi = 0; pi < j.patterns.size(); ++pi) {
            auto example = overlap(pj, other, abs_tpls[oi], abs_patterns[pi]);
            if (!example) continue;
            reported.insert(other.job->name);
            fail(2, "job '" + j.name + "': its input pattern '" + j.patterns[pi] + "' matches " +
                        (example->empty() ? "outputs" : "'" + *example + "', an output") + " of job '" +
                        other.job->name + "' (output '" + other.job->output +
                        "'), without declaring that it reads them (it could run before they are written, or "
                        "read them half-way): add 'needs: [" +
                        other.job->name + "]' to job '" + j.name + "' (or 'from: " + other.job->name +
                        "' to take them file by file), or make the pattern and the output folder disjoint");
            break;
        }
    }
}

void Planning::check_empty() {
    for (const auto& pj : jobs)
        if (pj.selected && !pj.late)
            for (const auto& why : empty_patterns(*pj.job, pj.per_pattern)) fail(1, why);
}

} // namespace

Plan make_plan(std::vector<PlanJob>& jobs, const PlanState& state, const fs::path& root, const ReservedPaths* reserved,
               const std::function<bool()>& cancelled) {
    Planning pl{jobs, state, root, {}, {}, {}, {}, {}, {}};
    for (auto& pj : jobs) pl.by_name[pj.job->name] = &pj;
    pl.order_needs();
    for (auto& pj : jobs) pl.predict(pj);
    pl.check_writers(reserved);
    pl.index_templates();
    for (auto& pj : jobs) {
        if (cancelled && cancelled()) break;
        std::set<std::string> reported;
        pl.filter_inputs(pj, reported);
        if (pj.selected) pl.check_patterns(pj, reported);
    }
    for (const auto& [job, over] : pl.over_inputs)
        pl.fail(2, over.first + (over.second ? " (and " + std::to_string(over.second) + " more of its outputs)" : ""));
    pl.check_empty();
    return std::move(pl.plan);
}

bool assembles_surfaces(const load::Job& j) {
    return !j.is_gather() && !j.steps.empty() && j.steps.front().def && j.steps.front().def->takes_texture;
}

} // namespace af::engine
