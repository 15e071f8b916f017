#include "engine/cached_entry_paths.hpp"

#include "engine/remote_cache_keys.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

namespace af::engine {

namespace fs = std::filesystem;

namespace {

bool from_name_only(const base::OutputTemplate& tpl, bool gather) {
    static const std::set<std::string> kFromName = {"dir", "stem",      "ext",        "name",       "path",
                                                    "job", "input_dir", "input_stem", "input_name", "input_ext"};
    for (const auto& p : tpl.placeholders())
        if (gather ? p != "job" : !kFromName.count(p)) return false;
    return true;
}

bool may_hold_slash(const std::string& placeholder) {
    return placeholder == "dir" || placeholder == "path" || placeholder == "input_dir";
}

// Parts from `at` on match `s` from `pos` on (backtracking over placeholder lengths; templates have a few parts).
bool match_from(const std::vector<base::OutputTemplate::Part>& parts, size_t at, const std::string& s, size_t pos) {
    if (at == parts.size()) return pos == s.size();
    const auto& part = parts[at];
    if (!part.placeholder)
        return s.compare(pos, part.text.size(), part.text) == 0 && match_from(parts, at + 1, s, pos + part.text.size());
    const bool slash = may_hold_slash(part.text);
    for (size_t end = pos + 1; end <= s.size(); ++end) {
        if (!slash && s[end - 1] == '/') return false;
        if (match_from(parts, at + 1, s, end)) return true;
    }
    return false;
}

// Names the tool gives its own files: temporaries and the build state.
bool tool_name(const std::string& rel) {
    for (size_t start = 0; start <= rel.size();) {
        size_t end = rel.find('/', start);
        if (end == std::string::npos) end = rel.size();
        const std::string_view part(rel.data() + start, end - start);
        if (part.starts_with(".af-tmp") || part == ".assetforge") return true;
        start = end + 1;
    }
    return false;
}

} // namespace

std::optional<std::vector<std::string>> predicted_outputs(const base::OutputTemplate& tpl, bool gather,
                                                          bool keeps_names, const std::string& input_name,
                                                          const std::string& job, const std::string& project_root) {
    if (!from_name_only(tpl, gather) || (!gather && !keeps_names)) return std::nullopt;
    auto values = base::template_values(gather ? "x" : input_name, {}, job);
    for (const char* k : {"dir", "stem", "name", "ext"}) values[std::string("input_") + k] = values[k];
    try {
        return std::vector<std::string>{base::resolve_output(tpl, values, project_root).native()};
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::map<std::string, std::string> input_name_values(bool gather, const std::string& input_name,
                                                     const std::string& job) {
    if (gather) return {{"job", job}};
    auto all = base::template_values(input_name, {}, job);
    std::map<std::string, std::string> v;
    for (const char* k : {"dir", "stem", "name", "ext", "path", "job"}) v[k] = all[k];
    for (const char* k : {"dir", "stem", "name", "ext"}) v[std::string("input_") + k] = all[k];
    return v;
}

bool template_can_produce(const base::OutputTemplate& tpl, const std::string& project_root, const std::string& abs,
                          const std::map<std::string, std::string>& fixed) {
    // Fixed values become literal text, as resolve_output would put them ({dir} is "." for a top-level name).
    std::vector<base::OutputTemplate::Part> parts;
    for (const auto& p : tpl.parts()) {
        auto it = p.placeholder ? fixed.find(p.text) : fixed.end();
        const base::OutputTemplate::Part part = it == fixed.end() ? p : base::OutputTemplate::Part{false, it->second};
        if (!part.placeholder && !parts.empty() && !parts.back().placeholder)
            parts.back().text += part.text;
        else
            parts.push_back(part);
    }
    for (auto& p : parts)
        if (!p.placeholder)
            for (size_t at; (at = p.text.find("/./")) != std::string::npos;) p.text.erase(at, 2);
    // The literal text before the first free placeholder resolves against the root, as resolve_output does.
    if (parts.empty() || parts.front().placeholder) parts.insert(parts.begin(), {false, ""});
    std::string& head = parts.front().text;
    const bool dir_end = parts.size() > 1 && (head.empty() || head.back() == '/');
    std::string resolved =
        (fs::path(head).is_absolute() ? fs::path(head) : fs::path(project_root) / head).lexically_normal().native();
    if (dir_end && !resolved.ends_with('/')) resolved += '/';
    if (!dir_end && resolved.ends_with('/') && resolved.size() > 1) resolved.pop_back();
    head = resolved;
    return match_from(parts, 0, abs, 0);
}

std::string cached_paths_problem(const CachedOutputRule& rule, const std::vector<std::string>& rels) {
    if (rels.empty()) return "names no outputs";
    std::set<std::string> seen;
    std::vector<std::string> abs;
    for (const auto& rel : rels) {
        if (!cached_path_allowed(rule.project_root, rule.out_base, rel))
            return "names " + rel + ", which is not below the job's output folder";
        if (!seen.insert(rel).second) return "names " + rel + " twice";
        abs.push_back(rule.project_root + "/" + rel);
    }
    if (rule.predicted) {
        std::vector<std::string> want = *rule.predicted, got = abs;
        std::sort(want.begin(), want.end());
        std::sort(got.begin(), got.end());
        if (got == want) return "";
        for (size_t i = 0; i < rels.size(); ++i)
            if (!std::binary_search(want.begin(), want.end(), abs[i]))
                return "names " + rels[i] + ", which is not an output of this action";
        return "lacks some of this action's outputs";
    }
    for (size_t i = 0; i < rels.size(); ++i) {
        if (tool_name(rels[i])) return "names " + rels[i] + ", a name of the tool's own files";
        if (!rule.tpl || !template_can_produce(*rule.tpl, rule.project_root, abs[i], rule.fixed))
            return "names " + rels[i] + ", which the output template cannot produce for this action";
        if (rule.taken && rule.taken(abs[i])) return "names " + rels[i] + ", which is not this action's to write";
    }
    return "";
}

} // namespace af::engine
