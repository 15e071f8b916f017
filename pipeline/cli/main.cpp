// assetforge: dispatches to built-in subcommands (self-registered, see
// command.hpp) and to subcommands that plugins provide.
#include "cli/command.hpp"

#include "assetforge/user_text.hpp"
#include "base/user_words.hpp"
#include "host/host_services.hpp"
#include "host/isolation/crash_handler.hpp"
#include "host/isolation/isolation.hpp"
#include "host/isolation/worker_main.hpp"
#ifdef AF_WITH_ENGINE
#include "cli/noop_answer.hpp"
#endif

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <iostream>

namespace af::cli {

std::vector<Command>& commands() {
    static std::vector<Command> list;
    return list;
}

} // namespace af::cli

namespace {

using namespace af;

void print_usage(const host::PluginRegistry& reg) {
    std::cout << "usage: assetforge [--version] [--help] <command> [args]\n\ncommands:\n";
    auto list = cli::commands();
    std::sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.name < b.name; });
    for (const auto& c : list)
        std::printf("  %-10.*s %.*s\n", int(c.name.size()), c.name.data(), int(c.summary.size()), c.summary.data());
    bool header = false;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->commands) {
            if (!header) std::cout << "\nplugin commands:\n";
            header = true;
            std::printf("  %-10s %s (plugin %s)\n", c.name, c.summary ? c.summary : "", p->name.c_str());
        }
    std::cout << "\nlimits (before the command; 0 = none): --max-dimension N (65536) --max-surfaces N (65536)\n"
                 "  --max-texture-bytes N (4 GiB) --max-items N (16777216)\n"
                 "plugins (before the command, repeatable):\n"
                 "  --plugin-override NAME (a third-party plugin NAME replaces the bundled one and wins its ties)\n"
                 "  --plugin-trust NAME (run third-party plugin NAME's commands in process)\n"
                 "  --allow-unconfined-load (without Landlock, load third-party plugins in workers anyway)\n"
                 "\n`assetforge <command> --help` describes a command.\n";
}

void on_interrupt(int) {
    // Second Ctrl-C kills at once; the first lets work stop cleanly.
    if (host::cancel_requested()) std::_Exit(130);
    host::request_cancel();
}

// Global limits come before the subcommand: `assetforge --max-dimension 8192 build …`, and so does
// --plugin-override, which must be known before any plugin loads (every command loads them before it parses its own
// options, and plugin commands are found among them). Returns how many arguments were consumed, or -1 on a usage
// error.
int parse_limits(int argc, char** argv, std::vector<std::string>& overrides, std::vector<std::string>& trusted) {
    int i = 1;
    for (; i < argc; i += 2) {
        std::string k = argv[i];
        if (k == "--allow-unconfined-load") {
            host::isolation::settings().allow_unconfined_load = true;
            --i; // takes no value
            continue;
        }
        if (i + 1 >= argc) break;
        if (k == "--plugin-override" || k == "--plugin-trust") {
            if (!*argv[i + 1]) {
                std::fprintf(stderr, "assetforge: %s needs a plugin's name\n", k.c_str());
                return -1;
            }
            (k == "--plugin-override" ? overrides : trusted).emplace_back(argv[i + 1]);
            continue;
        }
        char* end = nullptr;
        unsigned long long v = std::strtoull(argv[i + 1], &end, 10);
        if (k.rfind("--max-", 0) != 0) break;
        if (!*argv[i + 1] || *end) {
            std::fprintf(stderr, "assetforge: %s needs a number, got '%s'\n", sdk::printable(k).c_str(),
                         sdk::printable(argv[i + 1]).c_str());
            return -1;
        }
        auto& s = host::settings();
        if (k == "--max-dimension")
            s.max_dimension = uint32_t(std::min<unsigned long long>(v, UINT32_MAX));
        else if (k == "--max-surfaces")
            s.max_surfaces = uint32_t(std::min<unsigned long long>(v, UINT32_MAX));
        else if (k == "--max-texture-bytes")
            s.max_texture_bytes = v;
        else if (k == "--max-items")
            s.max_items = uint32_t(std::min<unsigned long long>(v, UINT32_MAX));
        else {
            std::fprintf(
                stderr,
                "assetforge: unknown limit %s (--max-dimension, --max-surfaces, --max-texture-bytes, --max-items)\n",
                sdk::printable(k).c_str());
            return -1;
        }
    }
    return i - 1;
}

// A command of a plugin loaded sealed: a command works on the user's files, which a sealed worker cannot reach, so
// it runs only when the user trusts the plugin by name (--plugin-trust NAME), and then in process, loaded from the
// same sealed copy of the library that was hashed.
int run_sealed_command(const host::LoadedPlugin& plugin, const std::string& name,
                       const std::vector<std::string>& trusted, std::vector<const char*>& cargv) {
    if (std::find(trusted.begin(), trusted.end(), plugin.name) == trusted.end()) {
        std::fprintf(stderr,
                     "assetforge: command '%s' is from the third-party plugin '%s' (%s), which runs only sealed in a "
                     "worker, and a command needs your files; not run (assetforge --plugin-trust %s %s … runs it in "
                     "process)\n",
                     sdk::printable(name).c_str(), sdk::printable(plugin.name).c_str(),
                     sdk::printable(plugin.path.string()).c_str(), sdk::printable(plugin.name).c_str(),
                     sdk::printable(name).c_str());
        return cli::kExitUsage;
    }
    host::PluginRegistry trusted_registry;
    if (!trusted_registry.load_in_process(plugin.path, "/proc/self/fd/" + std::to_string(plugin.image_fd))) {
        std::fprintf(stderr, "assetforge: cannot load %s: %s\n", sdk::printable(plugin.path.string()).c_str(),
                     sdk::printable(trusted_registry.failures().back().reason).c_str());
        return cli::kExitInputFailed;
    }
    auto pc = trusted_registry.command(name);
    if (!pc) {
        std::fprintf(stderr, "assetforge: plugin '%s' has no command '%s' when loaded in process\n",
                     sdk::printable(plugin.name).c_str(), sdk::printable(name).c_str());
        return cli::kExitInputFailed;
    }
    return pc.item->run(host::services(), int32_t(cargv.size()), cargv.data());
}

} // namespace

int main(int argc, char** argv) {
    // A plugin worker (see host/isolation) loads one plugin, not the search path.
    if (argc > 1 && std::strcmp(argv[1], host::isolation::kWorkerCommand) == 0)
        return host::isolation::run_plugin_worker(argc, argv);
#ifdef AF_WITH_ENGINE
    cli::note_command_line(argc, argv);
#endif
    host::isolation::protect_host();
    host::isolation::install_crash_handler();
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGTERM, on_interrupt);
    std::vector<std::string> overrides, trusted;
    int consumed = parse_limits(argc, argv, overrides, trusted);
    if (consumed < 0) return af::cli::kExitUsage;
    if (consumed > 0) {
        argv[consumed] = argv[0];
        argv += consumed;
        argc -= consumed;
    }
#ifdef AF_WITH_ENGINE
    // A `build` with nothing to do is answered before any plugin loads.
    if (argc > 1 && std::strcmp(argv[1], "build") == 0)
        if (auto code = cli::answer_from_noop_record()) return *code;
#endif
    // --isolate none runs every plugin in process, so third-party ones load here as before, not sealed in a worker;
    // it is the command's option, but loading comes first.
    for (int i = 2; i < argc; ++i)
        if (std::strcmp(argv[i], "--isolate=none") == 0 ||
            (std::strcmp(argv[i], "--isolate") == 0 && i + 1 < argc && std::strcmp(argv[i + 1], "none") == 0))
            host::isolation::settings().mode = host::isolation::Mode::None;
    host::PluginRegistry registry;
    host::set_registry(&registry);
    for (auto& name : overrides) registry.allow_override(name);
    registry.load_default();
    host::isolation::install(registry);
    // Said at once, not only where a file might have been the plugin's: the bundled plugin reads those files
    // without a word, and the user who installed this one would never learn why it does nothing.
    for (const auto& f : registry.failures())
        if (f.bundled_name) std::fprintf(stderr, "assetforge: warning: %s\n", sdk::printable(f.reason).c_str());
    for (const auto& name : overrides)
        if (std::none_of(registry.plugins().begin(), registry.plugins().end(),
                         [&](const auto& p) { return p->overriding && p->name == name; }))
            std::fprintf(stderr,
                         "assetforge: warning: --plugin-override %s: no third-party plugin of that name loaded\n",
                         sdk::printable(name).c_str());

    if (argc < 2) {
        print_usage(registry);
        return cli::kExitUsage;
    }
    std::string first = argv[1];
    if (first == "--version" || first == "version") {
        std::printf("assetforge %s (plugin API %d.%d)\n", AF_HOST_VERSION, AF_API_MAJOR, AF_API_MINOR);
        return cli::kExitOk;
    }
    if (first == "--help" || first == "-h" || first == "help") {
        print_usage(registry);
        return cli::kExitOk;
    }
    std::vector<std::string> args(argv + 2, argv + argc);
    cli::Context ctx{registry, argv[0]};
    for (const auto& c : cli::commands())
        if (c.name == first) {
            try {
                return c.run(ctx, args);
            } catch (const std::exception& e) {
                // The last boundary: the command and its arguments are the context.
                std::string context;
                for (const auto& a : args) context += (context.empty() ? "" : " ") + a;
                std::fprintf(stderr, "assetforge %s: %s\n", sdk::printable(first).c_str(),
                             sdk::error_line(context, e).c_str());
                return cli::kExitInputFailed;
            }
        }
    if (auto pc = registry.command(first)) {
        std::vector<const char*> cargv;
        cargv.push_back(argv[1]);
        for (int i = 2; i < argc; ++i) cargv.push_back(argv[i]);
        if (pc.plugin->sealed) return run_sealed_command(*pc.plugin, first, trusted, cargv);
        return pc.item->run(host::services(), int32_t(cargv.size()), cargv.data());
    }
    std::vector<std::string> names;
    for (const auto& c : cli::commands()) names.emplace_back(c.name);
    for (const auto& p : registry.plugins())
        for (const auto& c : p->commands) names.emplace_back(c.name);
    const std::string hint = base::did_you_mean(first, names);
    std::fprintf(stderr, "assetforge: unknown command '%s'%s (see `assetforge --help`)\n",
                 sdk::printable(first).c_str(), sdk::printable(hint).c_str());
    return cli::kExitUsage;
}
