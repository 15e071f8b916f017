#include "host/plugin_registry.hpp"

#include "core/lazy_module.hpp"

#include "assetforge/plugin.hpp"
#include "host/builtin_exr.hpp"
#include "host/builtin_png.hpp"
#include "host/host_services.hpp"
#include "host/isolation/isolation.hpp"
#include "host/isolation/sealed_library.hpp"
#include "host/library_file.hpp"
#include "host/probe_failures.hpp"

#include <boost/dll/shared_library.hpp>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

namespace af::host {
namespace fs = std::filesystem;

namespace {

std::string describe_version(uint16_t major, uint16_t minor) {
    return std::to_string(major) + "." + std::to_string(minor);
}

// Zero-extends a plugin's (possibly older, shorter) table to the host's layout.
template <class T> bool copy_table(const T* p, T& out, std::string& why, const char* what, size_t min_size) {
    if (!p) {
        why = std::string(what) + " table pointer is NULL";
        return false;
    }
    if (p->struct_size < min_size) {
        why = std::string(what) + " table too small (struct_size " + std::to_string(p->struct_size) + ")";
        return false;
    }
    if (p->api_major != AF_API_MAJOR) {
        why = std::string(what) + " table built for plugin API " + describe_version(p->api_major, p->api_minor) +
              ", this host speaks " + describe_version(AF_API_MAJOR, AF_API_MINOR);
        return false;
    }
    out = sdk::read_table<T>(p);
    return true;
}

// A declared parameter list (API 1.2) the engine can read: every entry a
// readable af_param with a name, every enum with choices. NULL: undeclared.
bool check_params(const af_param* const* list, uint32_t count, const std::string& owner, std::string& why) {
    if (!list) return true;
    for (uint32_t i = 0; i < count; ++i) {
        const af_param* p = list[i];
        const std::string at = owner + ", parameter " + std::to_string(i);
        if (!p || p->struct_size < offsetof(af_param, flags) + sizeof(uint32_t)) {
            why = at + ": missing or too small a descriptor";
            return false;
        }
        if (p->api_major != AF_API_MAJOR) {
            why = at + ": built for plugin API " + describe_version(p->api_major, p->api_minor);
            return false;
        }
        af_param c = sdk::read_table<af_param>(p);
        if (!c.name || !*c.name) {
            why = at + " has no name";
            return false;
        }
        if (c.type == AF_PARAM_ENUM && (!c.choices || !c.choices[0])) {
            why = owner + ", parameter '" + c.name + "': an enum without choices";
            return false;
        }
    }
    return true;
}

bool extension_matches(const char* list, std::string ext) {
    if (!list) return false;
    std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    std::string_view l(list);
    while (!l.empty()) {
        size_t semi = l.find(';');
        std::string_view item = l.substr(0, semi);
        if (!item.empty() && item == ext) return true;
        if (semi == std::string_view::npos) break;
        l.remove_prefix(semi + 1);
    }
    return false;
}

// The plugin's containers, codecs, stages and commands, each checked and zero-extended; false with `why` set.
bool copy_tables(const af_plugin& p, LoadedPlugin& lp, std::string& why) {
    auto refuse = [&](std::string text) {
        why = std::move(text);
        return false;
    };
    for (uint32_t i = 0; i < p.container_count; ++i) {
        af_container c{};
        if (!copy_table(p.containers[i], c, why, "container", offsetof(af_container, probe) + sizeof(void*)))
            return false;
        if (!c.name || !c.probe) return refuse("container " + std::to_string(i) + " lacks a name or probe");
        if ((c.caps & AF_CAN_READ) && !c.read)
            return refuse(std::string("container ") + c.name + " claims read without a read function");
        if ((c.caps & AF_CAN_WRITE) && !c.write)
            return refuse(std::string("container ") + c.name + " claims write without a write function");
        if ((c.caps & AF_CAN_INFO) && !c.info)
            return refuse(std::string("container ") + c.name + " claims info without an info function");
        if (!check_params(c.read_options, c.read_option_count, std::string("container ") + c.name + " read options",
                          why) ||
            !check_params(c.write_options, c.write_option_count, std::string("container ") + c.name + " write options",
                          why))
            return false;
        lp.containers.push_back(c);
    }
    for (uint32_t i = 0; i < p.codec_count; ++i) {
        af_codec c{};
        if (!copy_table(p.codecs[i], c, why, "codec", offsetof(af_codec, decode) + sizeof(void*))) return false;
        if (!c.name || (!c.formats && c.format_count)) return refuse("codec " + std::to_string(i) + " is malformed");
        if (!check_params(c.decode_options, c.decode_option_count, std::string("codec ") + c.name + " decode options",
                          why) ||
            !check_params(c.encode_options, c.encode_option_count, std::string("codec ") + c.name + " encode options",
                          why))
            return false;
        lp.codecs.push_back(c);
    }
    for (uint32_t i = 0; i < p.stage_count; ++i) {
        af_stage s{};
        if (!copy_table(p.stages[i], s, why, "stage", offsetof(af_stage, run) + sizeof(void*))) return false;
        if (!s.name || !s.run) return refuse("stage " + std::to_string(i) + " lacks a name or run function");
        if (!check_params(s.param_decls, s.param_decl_count, std::string("stage ") + s.name, why)) return false;
        lp.stages.push_back(s);
    }
    for (uint32_t i = 0; i < p.command_count; ++i) {
        af_command c{};
        if (!copy_table(p.commands[i], c, why, "command", offsetof(af_command, run) + sizeof(void*))) return false;
        if (!c.name || !c.run) return refuse("command " + std::to_string(i) + " lacks a name or run function");
        lp.commands.push_back(c);
    }
    return true;
}

} // namespace

PluginRegistry::PluginRegistry() {
    // The core's own formats (PNG, OpenEXR) go through the same tables as plugins.
    auto core = std::make_unique<LoadedPlugin>();
    core->name = "core";
    core->version = AF_HOST_VERSION;
    core->description = "built-in formats";
    core->path = "<built-in>";
    core->api_major = AF_API_MAJOR;
    core->api_minor = AF_API_MINOR;
    core->binary_hash = hash_string(std::string("core ") + AF_HOST_VERSION);
    core->bundled = true;
    core->containers.push_back(builtin_png_container());
    core->containers.push_back(builtin_exr_container());
    plugins_.push_back(std::move(core));
}

PluginRegistry::~PluginRegistry() = default;

std::vector<fs::path> PluginRegistry::default_search_path() {
    std::vector<fs::path> dirs;
    if (const char* env = std::getenv("ASSETFORGE_PLUGIN_PATH")) {
        std::string_view s(env);
        while (!s.empty()) {
            size_t c = s.find(':');
            if (c != 0) dirs.emplace_back(std::string(s.substr(0, c)));
            if (c == std::string_view::npos) break;
            s.remove_prefix(c + 1);
        }
    }
    const auto own = own_plugin_dirs();
    const bool has_beside = !executable_dir().empty();
    std::error_code ec;
    if (has_beside && fs::is_directory(own.front(), ec))
        dirs.push_back(own.front());
    else // a binary moved away from its plugins falls back to where they were installed or built
        dirs.insert(dirs.end(), own.begin() + (has_beside ? 1 : 0), own.end());
    std::vector<fs::path> unique;
    for (auto& d : dirs) {
        std::error_code ec;
        fs::path canon = fs::weakly_canonical(d, ec);
        if (ec) canon = d;
        if (std::find(unique.begin(), unique.end(), canon) == unique.end()) unique.push_back(canon);
    }
    return unique;
}

std::vector<fs::path> PluginRegistry::own_plugin_dirs() {
    std::vector<fs::path> dirs;
    if (fs::path exe = executable_dir(); !exe.empty())
        dirs.push_back((exe / ".." / "lib" / "assetforge" / "plugins").lexically_normal());
#ifdef AF_INSTALL_PLUGIN_DIR
    dirs.emplace_back(AF_INSTALL_PLUGIN_DIR);
#endif
#ifdef AF_BUILD_PLUGIN_DIR
    dirs.emplace_back(AF_BUILD_PLUGIN_DIR);
#endif
    return dirs;
}

void PluginRegistry::load_default() {
    // The host's own folders first, whatever $ASSETFORGE_PLUGIN_PATH lists before them: a bundled plugin is then
    // the one already loaded when a third-party one claims its name (load_file refuses or, overridden, replaces).
    const auto dirs = default_search_path();
    searched_.insert(searched_.end(), dirs.begin(), dirs.end());
    for (const bool bundled : {true, false})
        for (const auto& d : dirs)
            if (isolation::own_plugin_dir(d) == bundled) load_files_in(d);
}

void PluginRegistry::load_directory(const fs::path& dir) {
    searched_.push_back(dir);
    load_files_in(dir);
}

void PluginRegistry::load_files_in(const fs::path& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return;
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        auto ext = e.path().extension().string();
        if ((ext == ".so" || ext == ".dylib" || ext == ".dll") && e.is_regular_file(ec)) files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files)
        // A worker has the plugin it serves already, loaded from the host's copy (worker_main.cpp).
        if (std::none_of(plugins_.begin(), plugins_.end(), [&](const auto& p) { return p->path == f; })) load_file(f);
}

bool PluginRegistry::load_file(const fs::path& file) {
    if (std::string damage = library_file_damage(file); !damage.empty()) {
        failures_.push_back({file, damage});
        return false;
    }
    // A third-party library's code (its ELF constructors, its entry function) never runs here: a worker loads it
    // inside its sandbox and describes it. --isolate none is the user saying to run everything in process.
    if (isolation::third_party(file) && isolation::settings().mode != isolation::Mode::None) return load_sealed(file);
    return load_in_process(file, file);
}

bool PluginRegistry::load_sealed(const fs::path& file) {
    auto refuse = [&](std::string why) {
        failures_.push_back({file, std::move(why)});
        return false;
    };
    auto lp = std::make_unique<LoadedPlugin>();
    std::string why;
    if (!isolation::seal_library(file, lp->image_fd, lp->binary_hash, why)) return refuse(why);
    lp->image = std::shared_ptr<void>(nullptr, [fd = lp->image_fd](void*) { ::close(fd); });
    if (!isolation::describe_sealed(file, lp->image_fd, *lp, why)) return refuse(why);
    lp->path = file;
    lp->sealed = true;
    return accept(std::move(lp));
}

bool PluginRegistry::load_in_process(const fs::path& file, const fs::path& given) {
    auto refuse = [&](std::string why) {
        failures_.push_back({file, std::move(why)});
        return false;
    };
    // What is hashed is what is loaded: a file is copied into a sealed memory file, the copy is hashed and the
    // loader maps the copy. A plugin file replaced or rewritten while this process runs (a `watch`) then changes
    // neither the code that runs nor the identity recorded for what it made, and a worker under --isolate all is
    // handed the same copy. A descriptor handed over (`given`: a worker's, a trusted command's) is sealed already.
    int image_fd = -1;
    Hash128 hash;
    fs::path open_as = given;
    if (given == file) {
        std::string why;
        if (!isolation::seal_library(file, image_fd, hash, why)) return refuse(why);
        // Never closed: the loader knows the library by this name, and a later memory file given the same number
        // would be taken for it by the next dlopen of that name.
        open_as = "/proc/self/fd/" + std::to_string(image_fd);
        if (::access(open_as.c_str(), R_OK) != 0)
            open_as = file; // no /proc (a bare container): the file, hashed a moment before (docs/plugin-isolation.md)
        else if (std::string damage = library_file_damage(open_as); !damage.empty())
            return refuse(damage); // changed since load_file looked at it
    }
    auto lib = std::make_shared<boost::dll::shared_library>();
    boost::dll::fs::error_code ec;
    lib->load(boost::dll::fs::path(open_as.string()),
              boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local, ec);
    if (ec) {
        // Boost reports only a generic code; the loader's own words name the missing library or symbol.
        std::string detail = ec.message();
        if (void* h = ::dlopen(open_as.c_str(), RTLD_NOW | RTLD_LOCAL))
            ::dlclose(h);
        else if (const char* e = ::dlerror())
            detail = e;
        if (image_fd >= 0) // the user knows the file, not the copy's descriptor
            for (size_t at; (at = detail.find(open_as.native())) != std::string::npos;)
                detail.replace(at, open_as.native().size(), file.native());
        return refuse("cannot load: " + detail);
    }
    if (!lib->has(AF_ENTRY_SYMBOL))
        return refuse(std::string("no entry symbol '") + AF_ENTRY_SYMBOL + "': not an AssetForge plugin");
    auto entry = lib->get<const af_plugin*(const af_host*)>(AF_ENTRY_SYMBOL);
    const af_plugin* table = entry(services());
    if (!table) return refuse("entry returned no plugin table");
    if (table->api_major != AF_API_MAJOR)
        return refuse("built for plugin API " + describe_version(table->api_major, table->api_minor) +
                      ", this host speaks " + describe_version(AF_API_MAJOR, AF_API_MINOR) +
                      " (major versions must match; rebuild the plugin against this SDK)");
    af_plugin p{};
    std::string why;
    if (!copy_table(table, p, why, "plugin", offsetof(af_plugin, description) + sizeof(const char*)))
        return refuse(why);
    if (!p.name || !*p.name) return refuse("plugin table has no name");
    auto lp = std::make_unique<LoadedPlugin>();
    lp->name = p.name;
    lp->version = p.version ? p.version : "";
    lp->description = p.description ? p.description : "";
    lp->path = file;
    lp->api_major = table->api_major;
    lp->api_minor = table->api_minor;
    lp->image_fd = image_fd;
    try {
        lp->binary_hash = image_fd >= 0 ? hash : hash_file(open_as);
    } catch (const std::exception& e) {
        return refuse(e.what());
    }
    if (!copy_tables(p, *lp, why)) return refuse(why);
    // An accepted plugin stays mapped until the process exits. Its code can outlive the registry (TBB workers,
    // thread-local destructors, atexit handlers), and some of its dependencies cannot be unloaded cleanly:
    // libimagequant pulls in libgomp, whose start-up allocations become unreachable leaks once it is unmapped.
    ::dlopen(open_as.c_str(), RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
    lp->library = lib;
    return accept(std::move(lp));
}

bool PluginRegistry::accept(std::unique_ptr<LoadedPlugin> lp) {
    const fs::path file = lp->path;
    auto refuse = [&](std::string why) {
        failures_.push_back({file, std::move(why)});
        return false;
    };
    const std::string& name = lp->name;
    const bool bundled = !isolation::third_party(file);
    const bool overriding =
        !bundled && (override_any_ || std::find(overrides_.begin(), overrides_.end(), name) != overrides_.end());
    auto displaced = plugins_.end(); // the bundled plugin an overriding one replaces, once it is accepted
    for (auto it = plugins_.begin(); it != plugins_.end(); ++it) {
        const LoadedPlugin& existing = **it;
        if (existing.name != name) continue;
        if (existing.bundled && !bundled && !overriding) {
            refuse("plugin '" + name + "' from " + file.string() +
                   " has the name of a bundled plugin; not loaded (--plugin-override " + name + " to use it)");
            failures_.back().bundled_name = true;
            return false;
        }
        if (!existing.bundled || bundled)
            return refuse("plugin '" + name + "' already loaded from " + existing.path.string());
        displaced = it;
    }
    lp->bundled = bundled;
    lp->overriding = overriding;
    if (displaced != plugins_.end()) plugins_.erase(displaced);
    // Lookups take the first plugin that answers, so the order decides every tie (see container_for).
    auto rank = [](const LoadedPlugin& x) { return x.path == "<built-in>" ? 0 : x.overriding ? 1 : x.bundled ? 2 : 3; };
    const int mine = rank(*lp);
    auto at = std::find_if(plugins_.begin(), plugins_.end(), [&](const auto& x) { return rank(*x) > mine; });
    plugins_.insert(at, std::move(lp));
    return true;
}

Found<af_container> PluginRegistry::container_for(const fs::path& path, const uint8_t* head, uint64_t size,
                                                  uint64_t file_size) const {
    ProbeFailures failures; // whether a probe that failed is worth a warning depends on who claims the file
    Found<af_container> best;
    int32_t best_score = AF_PROBE_NO;
    const std::string p = path.string();
    for (const auto& pl : plugins_)
        for (const auto& c : pl->containers) {
            if (!(c.caps & AF_CAN_READ) && !(c.caps & AF_CAN_INFO)) continue;
            int32_t s = c.probe_size ? c.probe_size(head, size, std::max(file_size, size), p.c_str())
                                     : c.probe(head, size, p.c_str());
            if (!pl->bundled && !pl->overriding) s = std::min<int32_t>(s, AF_PROBE_MAGIC);
            if (s > best_score) {
                best_score = s;
                best = {&c, pl.get()};
            }
        }
    failures.settle(best.plugin);
    return best;
}

Found<af_container> PluginRegistry::container_by_name(std::string_view name) const {
    for (const auto& pl : plugins_)
        for (const auto& c : pl->containers)
            if (name == c.name) return {&c, pl.get()};
    return {};
}

Found<af_container> PluginRegistry::container_for_extension(std::string_view ext) const {
    for (const auto& pl : plugins_)
        for (const auto& c : pl->containers)
            if ((c.caps & AF_CAN_WRITE) && extension_matches(c.extensions, std::string(ext))) return {&c, pl.get()};
    return {};
}

Found<af_codec> PluginRegistry::codec_for(uint32_t format) const {
    for (const auto& pl : plugins_)
        for (const auto& c : pl->codecs)
            for (uint32_t i = 0; i < c.format_count; ++i)
                if (c.formats[i] == format) return {&c, pl.get()};
    return {};
}

Found<af_stage> PluginRegistry::stage(std::string_view name) const {
    for (const auto& pl : plugins_)
        for (const auto& s : pl->stages)
            if (name == s.name) return {&s, pl.get()};
    return {};
}

Found<af_command> PluginRegistry::command(std::string_view name) const {
    for (const auto& pl : plugins_)
        for (const auto& c : pl->commands)
            if (name == c.name) return {&c, pl.get()};
    return {};
}

} // namespace af::host
