#include "base/output_template.hpp"

#include "base/user_words.hpp"

#include <stdexcept>

namespace af::base {
namespace fs = std::filesystem;

OutputTemplate OutputTemplate::parse(const std::string& s) {
    OutputTemplate t;
    std::string lit;
    for (size_t i = 0; i < s.size(); ++i) {
        char c = s[i];
        if (c == '{' && i + 1 < s.size() && s[i + 1] == '{') {
            lit += '{';
            ++i;
        } else if (c == '}' && i + 1 < s.size() && s[i + 1] == '}') {
            lit += '}';
            ++i;
        } else if (c == '{') {
            size_t end = s.find('}', i);
            if (end == std::string::npos)
                throw std::invalid_argument("output template '" + s + "': '{' at column " + std::to_string(i + 1) +
                                            " is never closed (write '{{' for a literal brace)");
            std::string name = s.substr(i + 1, end - i - 1);
            if (name.empty()) throw std::invalid_argument("output template '" + s + "': empty placeholder '{}'");
            for (char n : name)
                if (!(isalnum(static_cast<unsigned char>(n)) || n == '_' || n == '.'))
                    throw std::invalid_argument("output template '" + s + "': bad placeholder name '{" + name + "}'");
            if (!lit.empty()) t.parts_.push_back({false, std::move(lit)});
            lit.clear();
            t.parts_.push_back({true, name});
            i = end;
        } else if (c == '}') {
            throw std::invalid_argument("output template '" + s + "': unmatched '}' at column " +
                                        std::to_string(i + 1) + " (write '}}' for a literal brace)");
        } else {
            lit += c;
        }
    }
    if (!lit.empty()) t.parts_.push_back({false, std::move(lit)});
    t.prefix_ = t.compute_prefix();
    return t;
}

std::string OutputTemplate::static_prefix() const { return prefix_; }

std::string OutputTemplate::compute_prefix() const {
    std::string prefix;
    for (const auto& p : parts_) {
        if (p.placeholder) {
            auto slash = prefix.rfind('/');
            return slash == std::string::npos ? "" : prefix.substr(0, slash);
        }
        prefix += p.text;
    }
    // No placeholder: a single fixed file (gather outputs); its directory is the root.
    auto slash = prefix.rfind('/');
    return slash == std::string::npos ? "" : prefix.substr(0, slash);
}

bool OutputTemplate::has_parent_ref_after_placeholder() const {
    bool seen = false;
    for (const auto& p : parts_) {
        if (p.placeholder)
            seen = true;
        else if (seen && (p.text.find("../") != std::string::npos || p.text.find("/..") != std::string::npos))
            return true;
    }
    return false;
}

std::vector<std::string> OutputTemplate::placeholders() const {
    std::vector<std::string> v;
    for (const auto& p : parts_)
        if (p.placeholder) v.push_back(p.text);
    return v;
}

std::string OutputTemplate::expand(const std::map<std::string, std::string>& values) const {
    std::string out;
    for (const auto& p : parts_) {
        if (!p.placeholder) {
            out += p.text;
            continue;
        }
        auto it = values.find(p.text);
        if (it == values.end()) {
            std::string have;
            for (const auto& [k, _] : values) have += (have.empty() ? "" : ", ") + k;
            throw std::runtime_error("output template uses {" + p.text +
                                     "} but this item has no such value (has: " + have + ")");
        }
        out += it->second;
    }
    return out;
}

namespace {

// Appends `s` to `out` dropping "." components and doubled slashes; false
// when a ".." component would need real normalisation.
bool append_simple(std::string& out, std::string_view s) {
    size_t i = 0;
    while (i <= s.size()) {
        size_t j = s.find('/', i);
        if (j == std::string_view::npos) j = s.size();
        std::string_view part = s.substr(i, j - i);
        if (part == "..") return false;
        if (!part.empty() && part != ".") {
            if (!out.empty() && out.back() != '/') out.push_back('/');
            out.append(part);
        }
        i = j + 1;
    }
    return true;
}

bool safe_value(std::string_view v) {
    if (v.empty()) return true;
    if (v[0] == '/' || v.find('\0') != std::string_view::npos || v.find('\\') != std::string_view::npos) return false;
    size_t i = 0;
    while (i <= v.size()) {
        size_t j = v.find('/', i);
        if (j == std::string_view::npos) j = v.size();
        if (v.substr(i, j - i) == "..") return false;
        i = j + 1;
    }
    return true;
}

} // namespace

bool OutputTemplate::resolve_name_only(std::string_view name, std::string_view job, const std::string& project_root,
                                       std::string& out) const {
    // The values template_values() derives, as views into `name`.
    size_t slash = name.rfind('/');
    std::string_view dir = slash == std::string_view::npos ? std::string_view(".") : name.substr(0, slash);
    std::string_view file = slash == std::string_view::npos ? name : name.substr(slash + 1);
    std::string_view stem = file, ext;
    if (file != "." && file != "..") {
        size_t dot = file.rfind('.');
        if (dot != std::string_view::npos && dot != 0) {
            stem = file.substr(0, dot);
            ext = file.substr(dot + 1);
        }
    }
    if (dir.empty() || file.empty()) return false; // "/x" or "x/": leave to the general path
    std::string text;
    for (const auto& p : parts_) {
        if (!p.placeholder) {
            text += p.text;
            continue;
        }
        std::string_view key = p.text, v;
        if (key.starts_with("input_")) key.remove_prefix(6);
        if (key == "dir")
            v = dir;
        else if (key == "stem")
            v = stem;
        else if (key == "ext")
            v = ext;
        else if (key == "name")
            v = file;
        else if (key == "path" && p.text == "path")
            v = name;
        else if (key == "job" && p.text == "job")
            v = job;
        else
            return false;
        if (!safe_value(v)) return false;
        text += v;
    }
    // Where resolve_output() would check the result: below the fixed directory.
    const bool root_normal = !project_root.empty() && project_root[0] == '/' &&
                             project_root.find("//") == std::string::npos &&
                             project_root.find("/.") == std::string::npos && project_root.back() != '/';
    auto absolute = [&](std::string_view t, std::string& o) {
        o = "/";
        if (t.empty() || t[0] != '/') {
            if (root_normal)
                o = project_root;
            else if (!append_simple(o, project_root))
                return false;
        }
        return append_simple(o, t);
    };
    std::string prefix;
    if (!absolute(prefix_, prefix) || !absolute(text, out)) return false;
    return out.size() > prefix.size() && out.compare(0, prefix.size(), prefix) == 0 &&
           (prefix == "/" || out[prefix.size()] == '/');
}

std::map<std::string, std::string>
template_values(const std::string& name, const std::map<std::string, std::string>& meta, const std::string& job) {
    std::map<std::string, std::string> v = meta;
    fs::path p(name);
    std::string dir = p.parent_path().generic_string();
    v["path"] = name;
    v["dir"] = dir.empty() ? "." : dir;
    v["name"] = p.filename().string();
    v["stem"] = p.stem().string();
    std::string ext = p.extension().string();
    v["ext"] = ext.empty() ? "" : ext.substr(1);
    v["job"] = job;
    return v;
}

bool path_within(const fs::path& p, const fs::path& root) {
    auto r = root.begin(), x = p.begin();
    for (; r != root.end(); ++r, ++x) {
        if (r->empty()) continue; // trailing separator
        if (x == p.end() || *x != *r) return false;
    }
    return true;
}

std::string unsafe_name_reason(const std::string& value) {
    if (value.find('\0') != std::string::npos) return "contains a NUL byte";
    if (!value.empty() && value[0] == '/') return "is an absolute path";
    // Harmless here, but Windows tools (and zip extractors) read it as a separator.
    if (value.find('\\') != std::string::npos) return "contains a backslash";
    for (const auto& part : fs::path(value))
        if (part == "..") return "contains '..'";
    return "";
}

fs::path resolve_output(const OutputTemplate& tpl, const std::map<std::string, std::string>& values,
                        const fs::path& project_root) {
    // Values come from input file names and from what plugins read out of
    // containers: a hostile file may name an entry "../../x" or "/etc/x".
    for (const auto& name : tpl.placeholders()) {
        auto it = values.find(name);
        if (it == values.end()) continue; // expand() reports it
        if (auto why = unsafe_name_reason(it->second); !why.empty())
            throw std::runtime_error("output path: {" + name + "} = '" + printable_name(it->second) + "' " + why +
                                     "; refusing to write outside the output directory");
    }
    fs::path prefix(tpl.static_prefix());
    fs::path out(tpl.expand(values));
    if (prefix.is_relative()) prefix = project_root / prefix;
    if (out.is_relative()) out = project_root / out;
    prefix = prefix.lexically_normal();
    out = out.lexically_normal();
    if (!path_within(out, prefix) || out == prefix)
        throw std::runtime_error("output path '" + out.string() + "' escapes the output directory '" + prefix.string() +
                                 "'");
    return out;
}

} // namespace af::base
