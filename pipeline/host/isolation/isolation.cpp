#include "host/isolation/isolation.hpp"

#include "host/isolation/call_scopes.hpp"
#include "host/isolation/codec_proxy.hpp"
#include "host/isolation/container_proxy.hpp"
#include "host/isolation/plugin_description.hpp"
#include "host/isolation/stage_proxy.hpp"
#include "host/plugin_registry.hpp"

#include "assetforge/plugin_abi.h"

#include <sys/prctl.h>
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

void protect_host() {
    if (!kSanitizerBuild) ::prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}

bool stage_reads_files(const af_stage& s) {
    if (!s.param_decls) return false;
    for (uint32_t i = 0; i < s.param_decl_count; ++i)
        if (s.param_decls[i] && (s.param_decls[i]->type == AF_PARAM_FILE || s.param_decls[i]->type == AF_PARAM_DIR))
            return true;
    return false;
}

const char* in_process_remedy(bool third_party, bool isolatable) {
    if (!isolatable) return nullptr;
    if (third_party) return "--isolate third-party (the default)";
    return settings().mode == Mode::All ? nullptr : "--isolate all";
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
        // By the stage's index in its plugin: a worker knows its stages by that alone (a sealed plugin's stages
        // have no code in the host at all).
        for (uint32_t i = 0; i < p->stages.size(); ++i) route_stage(*p, i, p->stages[i]);
    }
}

} // namespace af::host::isolation
