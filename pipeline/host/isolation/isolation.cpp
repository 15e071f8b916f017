#include "host/isolation/isolation.hpp"

#include "host/isolation/call_scopes.hpp"
#include "host/isolation/codec_proxy.hpp"
#include "host/isolation/container_proxy.hpp"
#include "host/isolation/plugin_description.hpp"
#include "host/plugin_registry.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>

namespace af::host::isolation {
namespace fs = std::filesystem;

Settings& settings() {
    static Settings s;
    return s;
}

std::optional<Mode> parse_mode(std::string_view text) {
    if (text == "none") return Mode::None;
    if (text == "third-party") return Mode::ThirdParty;
    if (text == "all") return Mode::All;
    return std::nullopt;
}

const char* mode_name(Mode m) {
    switch (m) {
    case Mode::None:
        return "none";
    case Mode::ThirdParty:
        return "third-party";
    case Mode::All:
        return "all";
    }
    return "?";
}

namespace {

// The folders the host's own plugins are installed or built in (not $ASSETFORGE_PLUGIN_PATH).
std::vector<fs::path> own_plugin_dirs() {
    std::vector<fs::path> dirs = PluginRegistry::own_plugin_dirs();
    for (auto& d : dirs) {
        std::error_code ec;
        fs::path c = fs::weakly_canonical(d, ec);
        if (!ec) d = c;
    }
    return dirs;
}

} // namespace

bool third_party(const LoadedPlugin& p) { return p.path != "<built-in>" && third_party(p.path); }

bool third_party(const fs::path& library) {
    std::error_code ec;
    fs::path dir = fs::weakly_canonical(library, ec).parent_path();
    return ec || !own_plugin_dir(dir);
}

bool own_plugin_dir(const fs::path& dir) {
    static const std::vector<fs::path> own = own_plugin_dirs();
    std::error_code ec;
    fs::path canon = fs::weakly_canonical(dir, ec);
    return !ec && std::find(own.begin(), own.end(), canon) != own.end();
}

bool isolated(const LoadedPlugin& p) {
    switch (settings().mode) {
    case Mode::None:
        return false;
    case Mode::All:
        return p.path != "<built-in>";
    case Mode::ThirdParty:
        return third_party(p);
    }
    return false;
}

void install(PluginRegistry& registry) {
    for (const auto& p : registry.plugins()) {
        if (p->path == "<built-in>") continue;
        for (uint32_t i = 0; i < p->containers.size(); ++i) route_container(*p, i, p->containers[i]);
        for (uint32_t i = 0; i < p->codecs.size(); ++i)
            if (p->sealed)
                route_codec(*p, i, p->codecs[i]);
            else
                scope_codec(*p, p->codecs[i]);
        for (auto& s : p->stages) {
            // A sealed plugin's stage: its code exists only in workers, and stages do not run there yet. This is
            // the one place its run pointer is set; a stage proxy routes it here instead.
            if (p->sealed) s.run = sealed_stage_unsupported;
            scope_stage(*p, s);
        }
    }
}

} // namespace af::host::isolation
