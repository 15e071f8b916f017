#include "load/config.hpp"

#include "base/glob.hpp"
#include "base/link_guard.hpp"
#include "base/output_template.hpp"
#include "load/config_errors.hpp"
#include "load/config_source.hpp"
#include "load/output_placeholders.hpp"
#include "steps/step_params.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <functional>
#include <optional>
#include <set>
#include <utility>

namespace af::load {
namespace fs = std::filesystem;
using base::ConfigError;
using base::SourcePos;

const Job* Pipeline::job(std::string_view name) const {
    for (const auto& j : jobs)
        if (j.name == name) return &j;
    return nullptr;
}

namespace {

SourcePos pos_of(const std::string& file, const YAML::Node& n) {
    auto m = n.Mark();
    if (m.line < 0) return {file, 0, 0};
    return {file, m.line + 1, m.column + 1};
}

// A node together with the file it came from (includes mix files).
struct Src {
    std::string file;
    YAML::Node node;
    Src() = default;
    Src(std::string f, YAML::Node n) : file(std::move(f)), node(std::move(n)) {}
    Src(const Src& o) : file(o.file), node(o.node) {}
    // YAML::Node's operator= writes through to the referenced node; rebind instead.
    Src& operator=(const Src& o) {
        file = o.file;
        node.reset(o.node);
        return *this;
    }
    SourcePos pos() const { return pos_of(file, node); }
};

// Limits a hostile pipeline file meets before it can exhaust time or memory:
// a few lines of nested references otherwise grow exponentially (each
// variable twice the next, each preset twice the next, each include twice
// the next).
constexpr size_t kMaxExpandedBytes = 64u << 10; // growth of one value by expansion
constexpr size_t kMaxStepsPerJob = 256;         // after presets are inlined
constexpr size_t kMaxIncludeLoads = 256;        // include files read, counting repeats

const std::vector<std::string> kTopKeys = {"assetforge",  "vars",          "include",      "presets",
                                           "jobs",        "output_root",   "remote_cache", "remote_cache_required",
                                           "normal_maps", "action_timeout"};
const std::vector<std::string> kJobKeys = {"inputs",      "exclude",    "from",        "needs",      "steps",
                                           "gather",      "output",     "description", "keep_edits", "follow_links",
                                           "allow_empty", "input_root", "normal_maps"};

std::string scalar(const Src& s, std::string_view what) {
    if (!s.node.IsScalar()) throw ConfigError(s.pos(), std::string(what) + " must be a single value");
    return s.node.Scalar();
}

std::vector<std::string> string_list(const Src& s, std::string_view what) {
    std::vector<std::string> out;
    if (s.node.IsNull()) return out;
    if (s.node.IsScalar()) return {s.node.Scalar()};
    if (!s.node.IsSequence()) throw ConfigError(s.pos(), std::string(what) + " must be a value or a list of values");
    for (const auto& e : s.node) out.push_back(scalar({s.file, e}, what));
    return out;
}

void check_keys(const Src& map, const std::vector<std::string>& valid, std::string_view what) {
    for (const auto& kv : map.node) {
        std::string k = kv.first.Scalar();
        if (std::find(valid.begin(), valid.end(), k) == valid.end())
            throw ConfigError(pos_of(map.file, kv.first), base::not_one_of(what, k, valid));
    }
}

struct Raw {
    std::map<std::string, std::pair<std::string, SourcePos>> vars; // value, where defined
    std::map<std::string, Src> presets;
    std::vector<std::pair<std::string, Src>> jobs; // in file order
    std::optional<Src> output_root;
    std::optional<Src> remote_cache;
    std::optional<Src> remote_cache_required;
    std::optional<Src> normal_maps;
    std::optional<Src> action_timeout;
    std::vector<fs::path> includes;
};

// The entries of a value-or-list, each with its own position.
std::vector<Src> entries(const Src& s, std::string_view what) {
    std::vector<Src> out;
    if (s.node.IsNull()) return out;
    if (s.node.IsScalar()) return {s};
    if (!s.node.IsSequence()) throw ConfigError(s.pos(), std::string(what) + " must be a value or a list of values");
    for (const auto& e : s.node) {
        out.emplace_back(s.file, e);
        scalar(out.back(), what);
    }
    return out;
}

// `p` with `..` and the links of its existing part resolved; the part that does not exist yet (an output folder a
// build would create) is appended as written, so it is judged by where its existing parent leads.
fs::path resolve_existing(const fs::path& p) {
    fs::path head = p, tail;
    while (true) {
        if (std::string real = base::real_path(head.native()); !real.empty())
            return (tail.empty() ? fs::path(real) : fs::path(real) / tail).lexically_normal();
        if (!head.has_relative_path()) return p.lexically_normal();
        tail = tail.empty() ? head.filename() : head.filename() / tail;
        head = head.parent_path();
    }
}

// Where the pipeline may read and write: its project, the folders the user allowed (--allow-path) and, for one
// path, the folder the user gave with -D that the path starts with. A pipeline file is code, and one from a mod
// is a stranger's: without this it could read any file into its outputs (and upload them to its own remote
// cache) or write anywhere the user can.
class Confinement {
  public:
    Confinement(const fs::path& project, const PathAllowList& allowed) : project_(project) {
        roots_.push_back(resolve_existing(project));
        for (const auto& a : allowed) roots_.push_back(resolve_existing(a));
    }
    const fs::path& project() const { return project_; }

    // "" when `p` (absolute) lies inside; else where it leads, outside. `named`: the -D folder it starts with
    // (absolute; empty when none).
    fs::path outside(const fs::path& p, const fs::path& named = {}) const {
        // The glob and the readers use the lexical form; the kernel resolves `..` after a link: both must stay in.
        for (const fs::path& at : {resolve_existing(p), resolve_existing(p.lexically_normal())}) {
            bool in = !named.empty() && base::path_within(at, resolve_existing(named));
            for (const auto& r : roots_) in = in || base::path_within(at, r);
            if (!in) return at;
        }
        return {};
    }

    // Throws when `p` lies outside: `what` says what named it ("input 'x/*.png'"), `allow` the folder to allow.
    void check(const SourcePos& pos, const std::string& what, const fs::path& p, bool write, const fs::path& named = {},
               bool file = false) const {
        const fs::path at = outside(p, named);
        if (at.empty()) return;
        std::string msg = what + (write ? " writes under " : " reads ") + at.string() + ", outside the project " +
                          project_.string() + " (a pipeline file is code: pass --allow-path " +
                          (file ? at.parent_path() : at).string() + " to let it " +
                          (write ? "write there" : "read there") + ")";
        // In the project by name, out through a link in it: the user may name the link, as the link guard says.
        const fs::path lexical = p.lexically_normal();
        if (base::path_within(lexical, project_) && lexical != project_)
            msg += "; a symbolic link in the project leads there: a linked folder the user gives on the command "
                   "line is allowed, -D <variable>=" +
                   lexical.lexically_relative(project_).string();
        throw ConfigError(pos, msg);
    }

  private:
    fs::path project_;
    std::vector<fs::path> roots_; // resolved
};

void collect(const YAML::Node& doc, const std::string& file, const fs::path& dir, bool is_main, Raw& raw,
             std::vector<fs::path>& stack, size_t& loads, const Confinement& confine) {
    Src top{file, doc};
    if (!doc.IsMap()) throw ConfigError(top.pos(), "a pipeline file is a map with 'assetforge: 1' and 'jobs:'");
    check_keys(top, kTopKeys, "top-level key");
    if (auto v = doc["assetforge"]) {
        Src s{file, v};
        if (scalar(s, "assetforge") != "1")
            throw ConfigError(s.pos(), "unsupported 'assetforge' version '" + v.Scalar() + "'; this tool reads 1");
    } else if (is_main) {
        throw ConfigError({file, 1, 1}, "missing 'assetforge: 1' (the schema version) at the top of the file");
    }
    if (auto inc = doc["include"]) {
        for (const auto& entry : entries({file, inc}, "include")) {
            const std::string e = entry.node.Scalar();
            fs::path p = fs::path(e).is_absolute() ? fs::path(e) : dir / e;
            p = p.lexically_normal();
            if (std::find(stack.begin(), stack.end(), p) != stack.end())
                throw ConfigError(entry.pos(), "include cycle: " + p.string() + " includes itself");
            if (++loads > kMaxIncludeLoads)
                throw ConfigError(entry.pos(), "more than " + std::to_string(kMaxIncludeLoads) +
                                                   " include files read (counting repeats); files that include "
                                                   "each other several times over?");
            confine.check(entry.pos(), "include '" + e + "'", p, false, {}, true);
            std::string text = read_config_file(p, entry.pos());
            raw.includes.push_back(p);
            stack.push_back(p);
            collect(parse_config_yaml(text, p.string()), p.string(), p.parent_path(), false, raw, stack, loads,
                    confine);
            stack.pop_back();
        }
    }
    if (auto vars = doc["vars"]) {
        Src s{file, vars};
        if (!vars.IsMap()) throw ConfigError(s.pos(), "'vars' must be a map of name: value");
        for (const auto& kv : vars)
            raw.vars[kv.first.Scalar()] = {scalar({file, kv.second}, "a variable"), pos_of(file, kv.second)};
    }
    if (auto pr = doc["presets"]) {
        Src s{file, pr};
        if (!pr.IsMap()) throw ConfigError(s.pos(), "'presets' must be a map of name: [steps]");
        for (const auto& kv : pr) {
            std::string name = kv.first.Scalar();
            if (raw.presets.count(name))
                throw ConfigError(pos_of(file, kv.first),
                                  "preset '" + name + "' is already defined at " + raw.presets[name].pos().str());
            raw.presets[name] = Src{file, kv.second};
        }
    }
    if (auto jobs = doc["jobs"]) {
        Src s{file, jobs};
        if (!jobs.IsMap()) throw ConfigError(s.pos(), "'jobs' must be a map of job name: {inputs, steps, output}");
        for (const auto& kv : jobs) {
            std::string name = kv.first.Scalar();
            for (const auto& [n, prev] : raw.jobs)
                if (n == name)
                    throw ConfigError(pos_of(file, kv.first),
                                      "job '" + name + "' is already defined at " + prev.pos().str());
            raw.jobs.push_back({name, Src{file, kv.second}});
        }
    }
    if (auto r = doc["output_root"]) raw.output_root = Src{file, r};
    if (auto r = doc["remote_cache"]) raw.remote_cache = Src{file, r};
    if (auto r = doc["remote_cache_required"]) raw.remote_cache_required = Src{file, r};
    if (auto r = doc["normal_maps"]) raw.normal_maps = Src{file, r};
    if (auto r = doc["action_timeout"]) raw.action_timeout = Src{file, r};
}

// `normal_maps:` of the pipeline and of a job reach every step of the job
// that takes the parameter (mips, encode), ahead of the step's own patterns:
// the last pattern that matches decides, so the narrower scope wins. As a
// parameter they are part of every action key: changing them rebuilds.
void apply_normal_maps(Job& j, const std::vector<std::string>& patterns) {
    if (patterns.empty()) return;
    std::string joined;
    for (const auto& p : patterns) joined += (joined.empty() ? "" : ",") + p;
    for (auto& st : j.steps) {
        if (!st.def) continue;
        const auto& ps = st.def->params;
        if (std::none_of(ps.begin(), ps.end(), [](const steps::ParamSpec& x) { return x.name == "normal_maps"; }))
            continue;
        std::string& v = st.params["normal_maps"];
        v = v.empty() ? joined : joined + "," + v;
    }
}

class Resolver {
  public:
    Resolver(const Raw& raw, const Defines& defines, const steps::StepTable& steps, const EnvAllowList& allowed_env,
             const Confinement& confine, fs::path defines_dir)
        : raw_(raw), steps_(steps), allowed_env_(allowed_env), confine_(confine), defines_dir_(std::move(defines_dir)) {
        for (const auto& [k, v] : raw.vars) values_[k] = v.first;
        for (const auto& [k, v] : defines) {
            values_[k] = v;
            defined_.insert(k);
        }
        for (auto& [k, v] : values_) {
            if (defined_.count(k) || expanded_.count(k)) continue;
            std::set<std::string> seen{k};
            v = expand_recursive(v, raw.vars.at(k).second, seen);
            expanded_.insert(k);
        }
    }
    const std::map<std::string, std::string>& vars() const { return values_; }
    std::vector<std::string> take_named() const { return std::exchange(named_, {}); }

    // The -D value an input pattern starts with ("${src}/**/*.png" with -D src=game: "game"), else "".
    std::string command_line_folder(const std::string& raw_pattern) const {
        if (raw_pattern.rfind("${", 0) != 0) return "";
        const size_t end = raw_pattern.find('}');
        if (end == std::string::npos || (end + 1 < raw_pattern.size() && raw_pattern[end + 1] != '/')) return "";
        const std::string name = raw_pattern.substr(2, end - 2);
        if (!defined_.count(name) || scope_.count(name)) return "";
        return command_line_path(values_.at(name));
    }

    // A path that a -D value starts: typed on the command line, so relative to the folder the user is in (as any
    // command-line tool reads its arguments), not to the pipeline's. Said relative to the project when inside it,
    // so a run from the pipeline's own folder names its files as it always did.
    std::string command_line_path(const std::string& value) const {
        if (defines_dir_.empty() || value.empty() || fs::path(value).is_absolute()) return value;
        const fs::path abs = (defines_dir_ / value).lexically_normal();
        const fs::path& root = confine_.project();
        std::string out = base::path_within(abs, root) ? abs.lexically_relative(root).string() : abs.string();
        if (out.empty()) out = ".";
        if (out.size() > 1 && out.back() == '/') out.pop_back(); // "${out}/x" of "mod/": "mod/x"
        return out;
    }

    // `s` as a path: a -D value it starts with is the user's (command_line_path), the rest as written.
    std::string expand_path(const std::string& s, const SourcePos& p) const {
        const std::string folder = command_line_folder(s);
        if (folder.empty()) return expand(s, p);
        const size_t end = s.find('}');
        referenced_.insert(s.substr(2, end - 2));
        named_.push_back(folder);
        return folder + expand(s.substr(end + 1), p);
    }
    const steps::StepTable& step_table() const { return steps_; }
    const fs::path& project() const { return confine_.project(); }

    // `value` (expanded from `raw`; relative to the project) must lie where the pipeline may reach; a -D folder
    // `raw` starts with counts, as the user named it.
    void confine(const SourcePos& pos, const std::string& what, const std::string& raw, const fs::path& value,
                 bool write, bool file = false) const {
        const fs::path& root = confine_.project();
        const std::string folder = command_line_folder(raw);
        const fs::path named = folder.empty()                   ? fs::path()
                               : fs::path(folder).is_absolute() ? fs::path(folder)
                                                                : root / folder;
        confine_.check(pos, what, value.is_absolute() ? value : root / value, write, named, file);
    }

    // Inside a preset its parameters shadow variables of the same name.
    std::string expand(const std::string& s, const SourcePos& p) const {
        if (auto folder = command_line_folder(s); !folder.empty()) named_.push_back(folder);
        if (scope_.empty()) return expand_vars(s, values_, p, allowed_env_, &referenced_, &env_read_);
        auto merged = values_;
        for (const auto& [k, v] : scope_) merged[k] = v;
        return expand_vars(s, merged, p, allowed_env_, &referenced_, &env_read_);
    }

    // -D names the pipeline neither declares nor reads: a typo (-D scr=… for src) would otherwise change nothing
    // without a word. Call after every string has been expanded.
    void check_defines_used(const Defines& defines, const std::string& file, ConfigErrorCollector& errors) const {
        std::vector<std::string> known;
        for (const auto& [k, _] : raw_.vars) known.push_back(k);
        for (const auto& k : referenced_)
            if (!raw_.vars.count(k)) known.push_back(k);
        for (const auto& [k, _] : defines) {
            if (raw_.vars.count(k) || referenced_.count(k)) continue;
            std::string its;
            for (const auto& n : known) its += (its.empty() ? "" : ", ") + n;
            errors.add(
                ConfigError({file, 0, 0}, "-D " + k + "=...: the pipeline has no variable '" + k + "' (" +
                                              (known.empty() ? std::string("it uses none") : "its variables: " + its) +
                                              ")" + base::did_you_mean(k, known)));
        }
    }

    std::vector<StepUse> steps(const Src& list, steps::StepKind want, std::vector<std::string>& preset_stack) const {
        std::vector<StepUse> out;
        if (list.node.IsScalar()) {
            append_step(list, list, want, out, preset_stack);
            return out;
        }
        if (!list.node.IsSequence())
            throw ConfigError(list.pos(), "'steps' must be a list: [decode, {mips: {filter: kaiser}}]");
        // Each step of the job's own list is checked even after a bad one, so one run names every mistake in it.
        // Inside a preset the first mistake ends it: presets that use each other twice over at every level would
        // otherwise be walked exponentially, mistake after mistake (each preset's first one is reported).
        if (!preset_stack.empty()) {
            for (const auto& e : list.node) append_step({list.file, e}, list, want, out, preset_stack);
            return out;
        }
        ConfigErrorCollector errors;
        for (const auto& e : list.node)
            errors.attempt([&] { append_step({list.file, e}, list, want, out, preset_stack); });
        errors.throw_if_any();
        return out;
    }

    StepUse one_step(const Src& node, steps::StepKind want) const {
        std::vector<std::string> stack;
        std::vector<StepUse> out;
        append_step(node, node, want, out, stack);
        if (out.size() != 1) throw ConfigError(node.pos(), "expected exactly one step here");
        return out[0];
    }

    StepUse make_use(const std::string& name, const Src& name_node, const std::optional<Src>& params,
                     steps::StepKind want) const {
        const steps::StepDef* def = steps_.find(name);
        if (!def) {
            auto choices = steps_.names();
            for (const auto& [p, _] : raw_.presets) choices.push_back(p);
            throw ConfigError(name_node.pos(), base::not_one_of("step", name, choices));
        }
        if (def->kind != want)
            throw ConfigError(name_node.pos(), want == steps::StepKind::Gather
                                                   ? "step '" + name + "' works file by file; put it under 'steps'"
                                                   : "step '" + name +
                                                         "' gathers all inputs (N → 1); use it as "
                                                         "'gather: " +
                                                         name + "'");
        std::vector<steps::GivenParam> given;
        if (params && !params->node.IsNull()) {
            if (!params->node.IsMap())
                throw ConfigError(params->pos(), "parameters of step '" + name + "' must be a map of name: value");
            for (const auto& kv : params->node) {
                std::string key = kv.first.Scalar();
                if (key == "step") continue; // gather: {step: zip, ...}
                Src vnode{params->file, kv.second};
                std::string value;
                if (kv.second.IsSequence()) {
                    for (const auto& e : kv.second)
                        value += (value.empty() ? "" : ",") + expand(scalar({params->file, e}, key), vnode.pos());
                } else {
                    const std::string raw = scalar(vnode, "parameter '" + key + "'");
                    value = names_path(*def, key) ? expand_path(raw, vnode.pos()) : expand(raw, vnode.pos());
                    confine_param(*def, name, key, raw, value, vnode.pos());
                }
                given.push_back({key, std::move(value), pos_of(params->file, kv.first), vnode.pos()});
            }
        }
        return {name, steps::step_params(*def, name_node.pos(), given, output_ext_), name_node.pos(), def};
    }

    // Whether parameter `key` names a file or folder (a path, resolved as one).
    static bool names_path(const steps::StepDef& def, const std::string& key) {
        return std::any_of(def.params.begin(), def.params.end(), [&](const steps::ParamSpec& s) {
            return s.name == key && (s.type == steps::ParamType::File || s.type == steps::ParamType::Dir);
        });
    }

    // A file or folder a step reads. A per-input file ("like: orig/{dir}/{stem}.dds") is judged by its fixed
    // folder; the placeholders' values cannot climb out of it (base::unsafe_name_reason).
    void confine_param(const steps::StepDef& def, const std::string& step, const std::string& key,
                       const std::string& raw, const std::string& value, const SourcePos& pos) const {
        const auto spec = std::find_if(def.params.begin(), def.params.end(),
                                       [&](const steps::ParamSpec& s) { return s.name == key; });
        if (spec == def.params.end() || value.empty() ||
            (spec->type != steps::ParamType::File && spec->type != steps::ParamType::Dir))
            return;
        const bool file = spec->type == steps::ParamType::File;
        const std::string what = "parameter " + key + " of step '" + step + "' ('" + value + "')";
        if (const auto brace = value.find('{'); file && brace != std::string::npos)
            confine(pos, what, raw, fs::path(value.substr(0, brace)).parent_path(), false);
        else
            confine(pos, what, raw, value, false, file);
    }

    // Extension of the current job's output template, for `write`'s options.
    void set_output_ext(std::string ext) const { output_ext_ = std::move(ext); }

  private:
    [[noreturn]] static void too_many_steps(const Src& at) {
        throw ConfigLimitError(at.pos(), "more than " + std::to_string(kMaxStepsPerJob) +
                                             " steps once presets are inlined; presets that use each other several "
                                             "times over?");
    }

    void append_step(const Src& e, const Src& list, steps::StepKind want, std::vector<StepUse>& out,
                     std::vector<std::string>& preset_stack) const {
        (void)list;
        std::string name;
        std::optional<Src> params;
        Src name_node = e;
        if (e.node.IsScalar()) {
            name = e.node.Scalar();
        } else if (e.node.IsMap() && e.node.size() == 1) {
            auto it = e.node.begin();
            name = it->first.Scalar();
            name_node = Src{e.file, it->first};
            params = Src{e.file, it->second};
        } else {
            throw ConfigError(e.pos(), "a step is a name ('decode') or a one-key map ('mips: {filter: kaiser}')");
        }
        if (auto pr = raw_.presets.find(name); pr != raw_.presets.end()) {
            if (std::find(preset_stack.begin(), preset_stack.end(), name) != preset_stack.end())
                throw ConfigError(name_node.pos(), "preset '" + name + "' uses itself");
            auto scope = preset_scope(name, pr->second, params);
            Src body = pr->second;
            if (body.node.IsMap()) body = Src{body.file, body.node["steps"]};
            std::swap(scope_, scope);
            preset_stack.push_back(name);
            try {
                auto inner = steps(body, want, preset_stack);
                if (out.size() + inner.size() > kMaxStepsPerJob) too_many_steps(name_node);
                out.insert(out.end(), inner.begin(), inner.end());
            } catch (...) {
                preset_stack.pop_back();
                std::swap(scope_, scope);
                throw;
            }
            preset_stack.pop_back();
            std::swap(scope_, scope);
            return;
        }
        if (out.size() + 1 > kMaxStepsPerJob) too_many_steps(name_node);
        out.push_back(make_use(name, name_node, params, want));
    }

    // A preset is a list of steps, or { params: {name: default}, steps: [...] }
    // whose steps say ${name}; a use overrides defaults: `- game_ready: { format: bc7 }`.
    // Returns the parameter values for the preset's body (outer scopes included,
    // so a nested preset can pass its own parameters on).
    std::map<std::string, std::string> preset_scope(const std::string& name, const Src& def,
                                                    const std::optional<Src>& use) const {
        std::map<std::string, std::string> scope = scope_;
        std::vector<std::string> declared;
        if (def.node.IsMap()) {
            check_keys(def, {"params", "steps", "description"}, "key of preset '" + name + "'");
            if (!def.node["steps"]) throw ConfigError(def.pos(), "preset '" + name + "' has 'params' but no 'steps'");
            if (auto ps = def.node["params"]) {
                Src psrc{def.file, ps};
                if (!ps.IsMap())
                    throw ConfigError(psrc.pos(), "'params' of preset '" + name + "' must be a map of name: default");
                for (const auto& kv : ps) {
                    std::string k = kv.first.Scalar();
                    declared.push_back(k);
                    Src v{def.file, kv.second};
                    scope[k] = v.node.IsNull() ? "" : expand(scalar(v, "a preset parameter"), v.pos());
                }
            }
        }
        if (!use || use->node.IsNull()) return scope;
        if (!use->node.IsMap())
            throw ConfigError(use->pos(), "parameters of preset '" + name + "' must be a map of name: value");
        for (const auto& kv : use->node) {
            std::string k = kv.first.Scalar();
            if (std::find(declared.begin(), declared.end(), k) == declared.end())
                throw ConfigError(pos_of(use->file, kv.first),
                                  declared.empty()
                                      ? "preset '" + name + "' takes no parameters (got '" + k +
                                            "'); declare them with 'params:' in the preset"
                                      : base::not_one_of("parameter of preset '" + name + "'", k, declared));
            Src v{use->file, kv.second};
            scope[k] = expand(scalar(v, "parameter '" + k + "'"), v.pos());
        }
        return scope;
    }

    std::string expand_recursive(const std::string& v, const SourcePos& p, std::set<std::string>& seen) {
        // Variables may refer to variables; expand referenced ones first.
        std::string out;
        for (size_t i = 0; i < v.size(); ++i) {
            if (v[i] == '$' && i + 1 < v.size() && v[i + 1] == '{') {
                size_t end = v.find('}', i);
                if (end == std::string::npos) throw ConfigError(p, "unterminated '${' in '" + v + "'");
                std::string name = v.substr(i + 2, end - i - 2);
                referenced_.insert(name);
                // Each variable is expanded once: "a: ${b}${b}", "b: ${c}${c}", … ending in an empty value never
                // grows, and expanding b again at every use would walk 2^depth (found by fuzz_yaml).
                if (name.rfind("env:", 0) != 0 && raw_.vars.count(name) && !defined_.count(name) &&
                    !expanded_.count(name)) {
                    if (seen.count(name)) throw ConfigError(p, "variable '" + name + "' refers to itself");
                    seen.insert(name);
                    values_[name] = expand_recursive(raw_.vars.at(name).first, raw_.vars.at(name).second, seen);
                    seen.erase(name);
                    expanded_.insert(name);
                }
                out += v.substr(i, end - i + 1);
                i = end;
            } else {
                out += v[i];
            }
        }
        return expand_vars(out, values_, p, allowed_env_, nullptr, &env_read_);
    }

    const Raw& raw_;
    const steps::StepTable& steps_;
    const EnvAllowList& allowed_env_;
    const Confinement& confine_;
    std::map<std::string, std::string> values_;
    std::set<std::string> expanded_; // names whose values_ entry is final
    std::set<std::string> defined_;
    // Parameters of the presets being expanded (mutable: set around each preset's body).
    mutable std::map<std::string, std::string> scope_;
    mutable std::string output_ext_;
    // -D values the strings of the job being parsed start with (command_line_folder), taken by parse_job.
    mutable std::vector<std::string> named_;
    // Every ${name} looked up while loading (env: ones included, harmless): which -D values were used.
    mutable std::set<std::string> referenced_;
    mutable EnvReads env_read_;
    fs::path defines_dir_; // where relative -D paths resolve (the user's current folder); empty: the project

  public:
    const EnvReads& env_read() const { return env_read_; }
};

// ".dds" of "out/{dir}/{stem}.dds"; "" when a placeholder names it or it cannot be told yet.
std::string output_extension(const Src& s, const Resolver& r) {
    auto out = s.node["output"];
    if (!out || !out.IsScalar()) return "";
    std::string t;
    try {
        t = r.expand(out.Scalar(), pos_of(s.file, out));
    } catch (const ConfigError&) {
        return ""; // reported when the output is parsed
    }
    std::string last = t.substr(t.rfind('/') == std::string::npos ? 0 : t.rfind('/') + 1);
    auto dot = last.rfind('.');
    if (dot == std::string::npos || last.find_first_of("{}", dot) != std::string::npos) return "";
    return last.substr(dot);
}

std::vector<std::string> expand_list(const Src& s, const YAML::Node& n, std::string_view what, const Resolver& r) {
    std::vector<std::string> v = string_list({s.file, n}, what);
    for (auto& x : v) x = r.expand(x, pos_of(s.file, n));
    return v;
}

// Excludes match a file's path from the project (or from its pattern's folder), never an absolute one: a -D folder
// they start with, resolved as the user's (expand_path), is said from the project too ("../edit/wip/**").
std::vector<std::string> exclude_list(const Src& s, const YAML::Node& n, std::string_view what, const Resolver& r) {
    std::vector<std::string> v = string_list({s.file, n}, what);
    for (auto& x : v) {
        x = r.expand_path(x, pos_of(s.file, n));
        if (fs::path(x).is_absolute()) x = fs::path(x).lexically_relative(r.project()).generic_string();
    }
    return v;
}

// Input patterns, each checked by its fixed folder: the walk below it never climbs ('..' matches nothing).
std::vector<std::string> input_patterns(const Src& s, const YAML::Node& n, std::string_view what, const Resolver& r) {
    std::vector<std::string> v = string_list({s.file, n}, what);
    for (auto& x : v) {
        const std::string raw = x;
        x = r.expand_path(raw, pos_of(s.file, n));
        std::vector<std::string> alts;
        try {
            base::expand_braces(x, alts);
        } catch (const std::invalid_argument&) {
            continue; // reported when the build expands it
        }
        for (const auto& alt : alts)
            r.confine(pos_of(s.file, n), "input '" + x + "'", raw, base::glob_base(alt), false);
    }
    return v;
}

void parse_inputs(const Src& s, const Resolver& r, Job& j) {
    if (auto in = s.node["inputs"]) {
        if (in.IsMap()) {
            check_keys({s.file, in}, {"include", "exclude", "from"}, "key of 'inputs'");
            if (in["include"]) j.patterns = input_patterns(s, in["include"], "inputs.include", r);
            if (in["exclude"]) j.excludes = exclude_list(s, in["exclude"], "inputs.exclude", r);
            if (in["from"]) j.from = string_list({s.file, in["from"]}, "inputs.from");
        } else {
            j.patterns = input_patterns(s, in, "inputs", r);
        }
    }
    if (auto n = s.node["exclude"]) {
        auto v = exclude_list(s, n, "exclude", r);
        j.excludes.insert(j.excludes.end(), v.begin(), v.end());
    }
    if (auto n = s.node["from"]) {
        auto v = string_list({s.file, n}, "from");
        j.from.insert(j.from.end(), v.begin(), v.end());
    }
    if (auto n = s.node["needs"]) j.needs = string_list({s.file, n}, "needs");
    if (j.patterns.empty() && j.from.empty())
        throw ConfigError(s.pos(),
                          "job '" + j.name + "' has no inputs: add 'inputs: \"dir/**/*.png\"' or 'from: <job>'");
    for (const auto& p : j.patterns)
        if (p.empty()) throw ConfigError(s.pos(), "job '" + j.name + "': empty input pattern");
}

void parse_gather(const Src& s, const Resolver& r, Job& j) {
    auto g = s.node["gather"];
    if (!g) return;
    Src gs{s.file, g};
    if (g.IsMap() && g["step"]) {
        std::string step = scalar({s.file, g["step"]}, "gather.step");
        j.gather = r.make_use(step, {s.file, g["step"]}, gs, steps::StepKind::Gather);
    } else {
        j.gather = r.one_step(gs, steps::StepKind::Gather);
    }
}

bool parse_flag(const Src& s, const Resolver& r, const Job& j, const char* key) {
    auto n = s.node[key];
    if (!n) return false;
    std::string v = r.expand(scalar({s.file, n}, key), pos_of(s.file, n));
    if (v == "true" || v == "yes" || v == "on") return true;
    if (v == "false" || v == "no" || v == "off") return false;
    throw ConfigError(pos_of(s.file, n),
                      "'" + std::string(key) + "' of job '" + j.name + "' is true or false, not '" + v + "'");
}

void parse_options(const Src& s, const Resolver& r, Job& j) {
    if (auto n = s.node["normal_maps"]) {
        std::vector<std::string> pats = expand_list(s, n, "normal_maps", r);
        for (const auto& p : pats)
            if (p.empty() || p == "!")
                throw ConfigError(pos_of(s.file, n), "job '" + j.name + "': empty normal_maps pattern");
        apply_normal_maps(j, pats);
    }
    j.keep_edits = parse_flag(s, r, j, "keep_edits");
    j.follow_links = parse_flag(s, r, j, "follow_links");
    j.allow_empty = parse_flag(s, r, j, "allow_empty");
    if (auto n = s.node["input_root"]) {
        const std::string raw = scalar({s.file, n}, "input_root");
        j.input_root = r.expand_path(raw, pos_of(s.file, n)); // made absolute below
        // Links may lead anywhere inside it: as far as an input may reach.
        r.confine(pos_of(s.file, n), "input_root '" + j.input_root.string() + "'", raw, j.input_root, false);
    }
}

void parse_output(const Src& s, const Resolver& r, Job& j) {
    auto out = s.node["output"];
    if (!out) throw ConfigError(s.pos(), "job '" + j.name + "' has no 'output' (e.g. \"build/{dir}/{stem}.png\")");
    j.output_pos = pos_of(s.file, out);
    j.output = r.expand_path(scalar({s.file, out}, "output"), j.output_pos);
    try {
        base::OutputTemplate::parse(j.output);
    } catch (const std::invalid_argument& e) {
        throw ConfigError(j.output_pos, e.what());
    }
}

// Each part of a job is checked even when another failed, so one run names every mistake.
Job parse_job(const std::string& name, const Src& s, const Resolver& r) {
    Job j;
    j.name = name;
    j.pos = s.pos();
    if (!s.node.IsMap()) throw ConfigError(s.pos(), "job '" + name + "' must be a map with inputs, steps and output");
    ConfigErrorCollector errors;
    (void)r.take_named();
    errors.attempt([&] { check_keys(s, kJobKeys, "key of job '" + name + "'"); });
    errors.attempt([&] { parse_inputs(s, r, j); });
    errors.attempt([&] { r.set_output_ext(output_extension(s, r)); });
    errors.attempt([&] {
        std::vector<std::string> stack;
        if (auto st = s.node["steps"]) j.steps = r.steps({s.file, st}, steps::StepKind::Map, stack);
    });
    errors.attempt([&] { parse_gather(s, r, j); });
    errors.attempt([&] { parse_options(s, r, j); });
    errors.attempt([&] { parse_output(s, r, j); });
    errors.throw_if_any();
    for (auto& folder : r.take_named()) j.named_folders.emplace_back(std::move(folder));
    check_output_placeholders(j, r.step_table());
    return j;
}

void order_jobs(Pipeline& p) {
    std::vector<std::string> names;
    for (const auto& j : p.jobs) names.push_back(j.name);
    for (const auto& j : p.jobs) {
        auto check = [&](const std::vector<std::string>& refs, std::string_view what) {
            for (const auto& ref : refs) {
                if (std::find(names.begin(), names.end(), ref) == names.end())
                    throw ConfigError(j.pos, "job '" + j.name + "' " + std::string(what) + ": " +
                                                 base::not_one_of("job", ref, names));
                if (ref == j.name) throw ConfigError(j.pos, "job '" + j.name + "' depends on itself");
            }
        };
        check(j.from, "from");
        check(j.needs, "needs");
    }
    std::vector<Job> ordered;
    std::set<std::string> done, visiting;
    std::function<void(const Job&)> visit = [&](const Job& j) {
        if (done.count(j.name)) return;
        if (visiting.count(j.name))
            throw ConfigError(j.pos, "jobs depend on each other in a cycle through '" + j.name + "'");
        visiting.insert(j.name);
        for (const auto& d : j.from) visit(*p.job(d));
        for (const auto& d : j.needs) visit(*p.job(d));
        visiting.erase(j.name);
        done.insert(j.name);
        ordered.push_back(j);
    };
    for (const auto& j : p.jobs) visit(j);
    p.jobs = std::move(ordered);
}

void check_output_roots(const Pipeline& p) {
    for (const auto& j : p.jobs) {
        auto t = base::OutputTemplate::parse(j.output);
        fs::path probe = fs::path(t.static_prefix());
        if (probe.is_relative()) probe = p.root / probe;
        probe = probe.lexically_normal();
        if (!base::path_within(probe, p.output_root))
            throw ConfigError(j.output_pos, "output '" + j.output + "' leaves the output root " +
                                                p.output_root.string() +
                                                " (set 'output_root:' at the top level to allow another directory)");
        if (t.has_parent_ref_after_placeholder())
            throw ConfigError(j.output_pos, "output '" + j.output +
                                                "' uses '..' after a placeholder; outputs must "
                                                "stay below the template's fixed directory");
    }
}

// `action_timeout:` a positive number of seconds (the command line's --action-timeout wins).
double action_timeout_seconds(const Resolver& r, const Src& s) {
    const std::string text = r.expand(scalar(s, "action_timeout"), s.pos());
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (text.empty() || *end || !(v > 0) || v > 1e9)
        throw ConfigError(s.pos(), "action_timeout must be a positive number of seconds, got '" + text + "'");
    return v;
}

} // namespace

EnvAllowList parse_env_allow_list(const std::string& text) {
    EnvAllowList names;
    std::string name;
    for (char c : text + ",") {
        if (c == ',' || std::isspace(static_cast<unsigned char>(c))) {
            if (!name.empty()) names.insert(name);
            name.clear();
        } else {
            name += c;
        }
    }
    return names;
}

std::string expand_vars(const std::string& text, const std::map<std::string, std::string>& vars, const SourcePos& pos,
                        const EnvAllowList& allowed_env, std::set<std::string>* referenced, EnvReads* env_read) {
    std::string out;
    out.reserve(text.size());
    for (size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c != '$') {
            out += c;
            continue;
        }
        if (i + 1 < text.size() && text[i + 1] == '$') {
            out += '$';
            ++i;
            continue;
        }
        if (i + 1 >= text.size() || text[i + 1] != '{') {
            out += c;
            continue;
        }
        size_t end = text.find('}', i);
        if (end == std::string::npos) throw ConfigError(pos, "unterminated '${' in '" + text + "'");
        std::string name = text.substr(i + 2, end - i - 2);
        if (name.rfind("env:", 0) == 0) {
            std::string env = name.substr(4), def;
            bool has_def = false;
            if (auto d = env.find(":-"); d != std::string::npos) {
                def = env.substr(d + 2);
                env = env.substr(0, d);
                has_def = true;
            }
            // Refused even with a default: a name the user did not list must not change what the build does.
            if (!allowed_env.count(env))
                throw ConfigError(pos, "the pipeline reads environment variable '" + env +
                                           "', which is not allowed (a pipeline file is code: pass --allow-env " + env +
                                           " or list it in ASSETFORGE_ALLOW_ENV to let it read that variable)");
            const char* v = std::getenv(env.c_str());
            if (env_read) env_read->emplace(env, v ? std::optional<std::string>(v) : std::nullopt);
            if (!v && !has_def)
                throw ConfigError(pos, "environment variable '" + env + "' is not set (write ${env:" + env +
                                           ":-default} to give a default)");
            out += v ? v : def;
        } else {
            if (referenced) referenced->insert(name);
            auto it = vars.find(name);
            if (it == vars.end()) {
                std::vector<std::string> names;
                for (const auto& [k, _] : vars) names.push_back(k);
                throw ConfigError(pos, "unknown variable '${" + name + "}'" +
                                           (names.empty() ? std::string("; no variables are defined")
                                                          : "; " + base::not_one_of("variable", name, names)));
            }
            out += it->second;
        }
        if (out.size() > text.size() + kMaxExpandedBytes)
            throw ConfigLimitError(pos,
                                   "'" + text.substr(0, 60) + (text.size() > 60 ? "..." : "") +
                                       "' grows by more than " + std::to_string(kMaxExpandedBytes >> 10) +
                                       " KiB when its variables are expanded; variables that refer to others several "
                                       "times over?");
        i = end;
    }
    return out;
}

Pipeline parse_pipeline(const std::string& yaml_text, const fs::path& file, const Defines& defines,
                        const steps::StepTable& steps, const EnvAllowList& allowed_env,
                        const PathAllowList& allowed_paths, const fs::path& defines_dir) {
    Pipeline p;
    p.file = fs::absolute(file).lexically_normal();
    p.root = p.file.parent_path();
    std::string fname = file.string();
    Raw raw;
    std::vector<fs::path> stack{p.file};
    size_t loads = 0;
    const Confinement confine(p.root, allowed_paths);
    collect(parse_config_yaml(yaml_text, fname), fname, p.root, true, raw, stack, loads, confine);
    Resolver r(raw, defines, steps, allowed_env, confine, defines_dir);
    for (const auto& inc : raw.includes)
        if (std::find(p.includes.begin(), p.includes.end(), inc) == p.includes.end()) p.includes.push_back(inc);
    p.vars = r.vars();
    p.output_root = p.root;
    if (raw.output_root) {
        const std::string text = scalar(*raw.output_root, "output_root");
        fs::path o = r.expand_path(text, raw.output_root->pos());
        p.output_root = (o.is_absolute() ? o : p.root / o).lexically_normal();
        // Outputs and the state are written under it; without this a pipeline could write ~/.gitconfig.
        r.confine(raw.output_root->pos(), "output_root '" + o.string() + "'", text, p.output_root, true);
    }
    if (raw.remote_cache) {
        // A URL only: credentials come from the environment or a netrc, never from a file under version control.
        p.remote_cache = r.expand(scalar(*raw.remote_cache, "remote_cache"), raw.remote_cache->pos());
        const auto scheme = p.remote_cache.find("://");
        if (scheme == std::string::npos ||
            (p.remote_cache.compare(0, scheme, "http") != 0 && p.remote_cache.compare(0, scheme, "https") != 0))
            throw ConfigError(raw.remote_cache->pos(), "remote_cache must be an http:// or https:// URL");
        const auto host_end = p.remote_cache.find('/', scheme + 3);
        if (p.remote_cache.substr(scheme + 3, host_end - scheme - 3).find('@') != std::string::npos)
            throw ConfigError(raw.remote_cache->pos(),
                              "remote_cache: no credentials in the pipeline file (set ASSETFORGE_REMOTE_CACHE_TOKEN, "
                              "or ASSETFORGE_REMOTE_CACHE_USER and _PASSWORD, or use a netrc)");
    }
    if (raw.remote_cache_required) {
        const std::string v =
            r.expand(scalar(*raw.remote_cache_required, "remote_cache_required"), raw.remote_cache_required->pos());
        if (v != "true" && v != "false")
            throw ConfigError(raw.remote_cache_required->pos(),
                              "remote_cache_required is true or false, not '" + v + "'");
        p.remote_cache_required = v == "true";
    }
    if (raw.action_timeout) p.action_timeout = action_timeout_seconds(r, *raw.action_timeout);
    if (raw.jobs.empty()) throw ConfigError({fname, 1, 1}, "no jobs: add a 'jobs:' map");
    std::vector<std::string> normal_maps;
    if (raw.normal_maps) {
        normal_maps = string_list(*raw.normal_maps, "normal_maps");
        for (auto& x : normal_maps) {
            x = r.expand(x, raw.normal_maps->pos());
            if (x.empty() || x == "!") throw ConfigError(raw.normal_maps->pos(), "empty normal_maps pattern");
        }
    }
    ConfigErrorCollector errors;
    for (const auto& job : raw.jobs) { // a pair, not a structured binding: clang 14 lambdas cannot capture those
        errors.attempt([&] {
            p.jobs.push_back(parse_job(job.first, job.second, r));
            // Before the job's own: prepended, so the job's patterns come later and win.
            apply_normal_maps(p.jobs.back(), normal_maps);
        });
    }
    // Only on an otherwise good file: a job that failed part-way may not have read its variables yet.
    if (errors.empty()) r.check_defines_used(defines, fname, errors);
    errors.throw_if_any();
    for (auto& j : p.jobs) {
        if (!j.input_root.empty())
            j.input_root = (j.input_root.is_absolute() ? j.input_root : p.root / j.input_root).lexically_normal();
        for (auto& f : j.named_folders) {
            f = (f.is_absolute() ? f : p.root / f).lexically_normal();
            if (f.has_filename() == false) f = f.parent_path(); // "game/" names the folder "game"
        }
    }
    order_jobs(p);
    check_output_roots(p);
    p.env_read = r.env_read();
    return p;
}

Pipeline load_pipeline(const fs::path& file, const Defines& defines, const steps::StepTable& steps,
                       const EnvAllowList& allowed_env, const PathAllowList& allowed_paths,
                       const fs::path& defines_dir) {
    return parse_pipeline(read_config_file(file, {file.string(), 0, 0}), file, defines, steps, allowed_env,
                          allowed_paths, defines_dir);
}

} // namespace af::load
