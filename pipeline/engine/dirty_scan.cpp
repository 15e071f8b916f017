#include "engine/dirty_scan.hpp"

#include <sstream>

namespace af::engine {

namespace {
// Bump when the engine's own output for the same key would change.
constexpr const char* kEngineKeyVersion = "assetforge-engine-2";
} // namespace

void hash_field(Hasher& h, const Hash128& v) {
    uint64_t w[2] = {v.lo, v.hi};
    h.field(std::string_view(reinterpret_cast<const char*>(w), sizeof w));
}

Hash128 job_signature(const load::Job& j) {
    Hasher h;
    h.field(kEngineKeyVersion);
    auto step = [&](const load::StepUse& s) {
        h.field(s.name);
        h.field(std::to_string(s.def->version));
        h.field(s.def->provider);
        for (const auto& [k, v] : s.params) {
            h.field(k);
            h.field(v);
        }
        h.field("|");
    };
    for (const auto& s : j.steps) step(s);
    h.field("gather");
    if (j.is_gather()) step(j.gather);
    h.field(j.output);
    return h.digest();
}

DirtyScan::DirtyScan(StateStore& store, const Disk& disk, ProjectPaths paths, const std::filesystem::path& root,
                     std::function<std::string(const std::string&)> tool_identity)
    : store_(store), disk_(disk), paths_(std::move(paths)), root_(root), tool_identity_(std::move(tool_identity)) {}

DirtyScan::Key DirtyScan::key(const JobRun& j, std::vector<Input>& inputs) {
    Hasher ih;
    for (auto& in : inputs) {
        if (!in.hash) {
            auto st = in.st ? in.st : disk_.stat(in.rel, in.abs);
            if (!st) throw std::runtime_error(in.abs + ": file not found");
            in.bytes = st->size;
            // Through the disk the build reads from (the stat cache reads a file only when its stat changed).
            in.hash = store_.file_hash(in.rel, *st, [&] { return disk_.hash(in.abs); });
        }
        ih.field(in.name);
        hash_field(ih, *in.hash);
    }
    if (!j.param_reads.empty())
        hash_param_reads(j.param_reads, *j.job, root_, store_, ih,
                         !inputs[0].set.empty() ? inputs[0].set
                         : inputs.size() == 1   ? inputs[0].name
                                                : "");
    Key k;
    k.input_hash = ih.digest();
    Hasher kh;
    hash_field(kh, j.signature);
    hash_field(kh, k.input_hash);
    k.key = kh.digest();
    return k;
}

std::string Staleness::text() const {
    switch (kind) {
    case UpToDate:
        return "";
    case NewInput:
        return "new input";
    case FailedLastTime:
        return "failed last time";
    case ParametersChanged:
        return "parameters changed";
    case InputChanged:
        return "input changed";
    case PluginChanged:
        return "plugin " + detail;
    case OutputMissing:
        return "output missing: " + detail;
    case OutputUnreadable:
        return "output unreadable: " + detail;
    case OutputEdited:
        return "output edited: " + detail;
    case UpstreamRebuilds:
        return "an upstream action will rebuild its input";
    case WarningsUnknown:
        return "--warnings-as-errors, and the state (from an older version) does not say what it discarded";
    }
    return detail;
}

Staleness DirtyScan::out_of_date(const load::Job& job, const std::shared_ptr<const ActionRecord>& rec,
                                 const Hash128& params, const Hash128& input_hash,
                                 std::optional<ActionRecord>& refreshed) {
    using S = Staleness;
    if (!rec) return {S::NewInput, {}};
    if (rec->status == ActionRecord::Status::Failed || rec->key == Hash128{}) return {S::FailedLastTime, {}};
    if (rec->params_hash != params) {
        // A plugin's identity is part of the parameters' hash: a rebuilt plugin is the better reason.
        if (auto t = plugins_changed(rec->tools); !t.empty()) return {S::PluginChanged, t};
        return {S::ParametersChanged, {}};
    }
    if (rec->input_hash != input_hash) return {S::InputChanged, {}};
    if (auto t = plugins_changed(rec->tools); !t.empty()) return {S::PluginChanged, t};
    for (size_t i = 0; i < rec->outputs.size(); ++i) {
        const auto& o = rec->outputs[i];
        auto st = disk_.stat(o.path, paths_.abs_of(o.path));
        if (!st) return {S::OutputMissing, o.path};
        if (*st == o.st) continue;
        Hash128 h;
        try {
            h = disk_.hash(paths_.abs_of(o.path));
        } catch (const std::exception&) {
            return {S::OutputUnreadable, o.path};
        }
        if (!(h == o.hash) && !job.keep_edits) return {S::OutputEdited, o.path};
        if (!refreshed) refreshed = *rec;
        refreshed->outputs[i].st = *st;
        refreshed->outputs[i].hash = h;
    }
    return {};
}

// "dds@1.0#ab12;bc@1.2#cd34" → names, compared against what is loaded now.
std::string DirtyScan::plugins_changed(const std::string& recorded) {
    if (recorded.empty()) return "";
    std::lock_guard lk(tools_mu_);
    auto it = tools_verdicts_.find(recorded);
    if (it != tools_verdicts_.end()) return it->second;
    std::string verdict;
    std::stringstream ss(recorded);
    std::string t;
    while (std::getline(ss, t, ';')) {
        std::string name = t.substr(0, t.find('@'));
        std::string now = tool_identity_ ? tool_identity_(name) : "";
        if (now != t) {
            verdict = name + " changed (" + t + " → " + (now.empty() ? "not loaded" : now) + ")";
            break;
        }
    }
    return tools_verdicts_.emplace(recorded, verdict).first->second;
}

} // namespace af::engine
