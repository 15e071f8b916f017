#include "cli/container_defines.hpp"

#include "assetforge/error.hpp"
#include "base/user_words.hpp"
#include "steps/param_check.hpp"
#include "steps/plugin_params.hpp"

#include <fstream>
#include <stdexcept>

namespace af::cli {
namespace {

struct Declared {
    std::optional<std::vector<steps::ParamSpec>> specs; // nullopt: the container declares nothing
    bool exists = false;
};

Declared declared(const host::PluginRegistry& reg, const std::string& container, bool write) {
    Declared d;
    if (container.empty()) return d;
    auto c = reg.container_by_name(container);
    if (!c) return d;
    d.exists = (c.item->caps & (write ? AF_CAN_WRITE : AF_CAN_READ)) != 0;
    if (d.exists)
        d.specs = write ? steps::param_specs(c.item->write_options, c.item->write_option_count, container)
                        : steps::param_specs(c.item->read_options, c.item->read_option_count, container);
    return d;
}

const steps::ParamSpec* find(const Declared& d, const std::string& key) {
    if (!d.specs) return nullptr;
    for (const auto& s : *d.specs)
        if (s.name == key) return &s;
    return nullptr;
}

std::string names(const Declared& d) {
    if (!d.specs || d.specs->empty()) return "nothing";
    std::string out;
    for (const auto& s : *d.specs) out += (out.empty() ? "" : ", ") + s.name;
    return out;
}

std::vector<std::string> all_names(const Declared& a, const Declared& b) {
    std::vector<std::string> out;
    for (const Declared* d : {&a, &b})
        if (d->specs)
            for (const auto& s : *d->specs) out.push_back(s.name);
    return out;
}

std::string checked(const steps::ParamSpec* spec, const Define& d, const std::string& container, const char* role) {
    if (!spec) return d.second; // an undeclared table: the container takes any option as text
    try {
        return steps::check_param_value(*spec, d.second, "-O " + d.first + " of the " + container + " " + role);
    } catch (const std::invalid_argument& e) {
        sdk::usage(e.what());
    }
}

} // namespace

Define parse_define(const std::string& text) {
    const auto eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        sdk::usage("-O takes KEY=VALUE (a container option, e.g. -O rle=true), got '" + text + "'");
    return {text.substr(0, eq), text.substr(eq + 1)};
}

ContainerDefines route_defines(const host::PluginRegistry& reg, const std::string& in_container,
                               const std::string& out_container, const std::vector<Define>& defines) {
    ContainerDefines out;
    const Declared writer = declared(reg, out_container, true);
    const Declared reader = declared(reg, in_container, false);
    for (const auto& d : defines) {
        if (const steps::ParamSpec* w = find(writer, d.first)) {
            out.write[d.first] = checked(w, d, out_container, "writer");
        } else if (const steps::ParamSpec* r = find(reader, d.first)) {
            out.read[d.first] = checked(r, d, in_container, "reader");
        } else if (writer.exists && !writer.specs) {
            out.write[d.first] = d.second; // a writer built before declarations: it gets the option as typed
        } else if (reader.exists && !reader.specs) {
            out.read[d.first] = d.second;
        } else {
            sdk::usage("-O " + d.first + ": the " + (out_container.empty() ? "output" : out_container) +
                       " writer takes " + names(writer) + "; the " + (in_container.empty() ? "input" : in_container) +
                       " reader takes " + names(reader) + base::did_you_mean(d.first, all_names(writer, reader)));
        }
    }
    return out;
}

std::string reading_container(const host::PluginRegistry& reg, const std::filesystem::path& path) {
    uint8_t head[4096];
    std::ifstream f(path, std::ios::binary);
    f.read(reinterpret_cast<char*>(head), sizeof head);
    const auto n = f ? sizeof head : size_t(f.gcount());
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec);
    auto c = reg.container_for(path, head, n, ec ? n : size);
    return c ? c.item->name : "";
}

} // namespace af::cli
