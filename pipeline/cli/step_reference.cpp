#include "cli/step_reference.hpp"

#include "base/user_words.hpp"

#include <sstream>

namespace af::cli {
namespace {

std::string str(const nlohmann::json& j, const char* key) {
    auto it = j.find(key);
    return it == j.end() || it->is_null() ? "" : it->is_string() ? it->get<std::string>() : it->dump();
}

// Descriptions come from plugins: a '|' would split a table cell, a newline the table.
std::string cell(const std::string& s) {
    std::string out;
    for (char c : engine::printable_name(s)) {
        if (c == '|') out += '\\';
        out += c;
    }
    return out;
}

std::string joined(const nlohmann::json& list, bool code) {
    std::string out;
    for (const auto& v : list) {
        if (!out.empty()) out += ", ";
        out += code ? "`" + v.get<std::string>() + "`" : v.get<std::string>();
    }
    return out;
}

} // namespace

std::string valid_values(const nlohmann::json& p, bool code) {
    std::string out;
    if (p.contains("choices")) out = (p["type"] == "list" ? "list of " : "") + joined(p["choices"], code);
    if (p.contains("also")) out += ", or " + p["also"].get<std::string>();
    if (p.contains("ignore_case")) out += " (any case)";
    const std::string lo = str(p, "min"), hi = str(p, "max");
    if (!lo.empty() && !hi.empty())
        out = p.contains("min_exclusive") ? "(" + lo + ", " + hi + "]" : lo + ".." + hi;
    else if (!lo.empty())
        out = (p.contains("min_exclusive") ? "> " : ">= ") + lo;
    else if (!hi.empty())
        out = "<= " + hi;
    return out;
}

std::string step_reference_markdown(const nlohmann::json& steps) {
    std::ostringstream md;
    for (const auto& s : steps) {
        md << "#### `" << s["name"].get<std::string>() << "`";
        if (!s["plugin"].is_null()) md << " (plugin `" << s["plugin"].get<std::string>() << "`)";
        md << "\n\n" << cell(s["description"].get<std::string>()) << "\n\n";
        md << (s["kind"] == "gather" ? "Gathers every input of the job into one action; " : "Runs once per item; ");
        md << (s["takes"] == "texture" ? "reads its input into a texture first.\n\n" : "takes bytes or textures.\n\n");
        if (!s["params"].empty()) {
            md << "| parameter | type | default | valid values | meaning |\n|---|---|---|---|---|\n";
            for (const auto& p : s["params"]) {
                std::string def = p.contains("required") ? "required" : str(p, "default");
                if (!def.empty() && def != "required") def = "`" + def + "`";
                md << "| `" << p["name"].get<std::string>() << "` | " << p["type"].get<std::string>() << " | "
                   << cell(def) << " | " << cell(valid_values(p, true)) << " | " << cell(p["doc"].get<std::string>())
                   << " |\n";
            }
            md << "\n";
        } else if (s["other_params"].is_null()) {
            md << "No parameters.\n\n";
        }
        const auto& other = s["other_params"];
        if (other == "any")
            md << "Takes any parameter: its plugin declares none (built against plugin API 1.0/1.1).\n\n";
        else if (other.is_array() && !other.empty()) {
            md << "Also takes the options that the loaded containers or codecs declare, each for its own:\n\n"
               << "| of | option | type | default | valid values | meaning |\n|---|---|---|---|---|---|\n";
            for (const auto& o : s["options_by_owner"])
                for (const auto& p : o["options"]) {
                    std::string def = str(p, "default");
                    if (!def.empty()) def = "`" + def + "`";
                    md << "| " << o["owner"].get<std::string>() << " | `" << p["name"].get<std::string>() << "` | "
                       << p["type"].get<std::string>() << " | " << cell(def) << " | " << cell(valid_values(p, true))
                       << " | " << cell(p["doc"].get<std::string>()) << " |\n";
                }
            md << "\n";
        }
        if (s["meta_keys"].is_array() && !s["meta_keys"].empty()) {
            std::string keys;
            for (const auto& k : s["meta_keys"]) keys += (keys.empty() ? "`{" : ", `{") + k.get<std::string>() + "}`";
            md << "Output placeholders it fills: " << keys << ".\n\n";
        }
    }
    std::string out = md.str();
    while (out.size() >= 2 && out[out.size() - 1] == '\n' && out[out.size() - 2] == '\n') out.pop_back();
    return out;
}

} // namespace af::cli
