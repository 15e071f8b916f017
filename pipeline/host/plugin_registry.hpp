// Loads plugins (Boost.DLL), checks their ABI, and answers "who handles this?"
// by file probe, codec format, stage name and command name.
#pragma once

#include "assetforge/plugin_abi.h"
#include "core/content_hash.hpp"

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace af::host {

struct LoadedPlugin {
    std::string name, version, description;
    std::filesystem::path path;
    uint16_t api_major = 0, api_minor = 0;
    Hash128 binary_hash;     // mixed into action keys: a rebuilt plugin rebuilds its outputs
    bool bundled = false;    // built in, or from the host's own plugin folder (not $ASSETFORGE_PLUGIN_PATH)
    bool overriding = false; // third-party, named by --plugin-override: may displace bundled plugins
    // Third-party and loaded only in workers: the host never mapped its code, it learnt the tables below from a
    // worker (isolation/plugin_description.hpp), and every entry point routes to a worker.
    bool sealed = false;
    // A sealed memory file holding the library's bytes as they were hashed into binary_hash: what this process
    // mapped (loaded in process) and what every worker loads (sealed, or a bundled plugin under --isolate all), so
    // what was hashed is what runs. Sealed: kept open by `image`; in process: open until the process exits.
    int image_fd = -1;
    std::shared_ptr<void> image;
    std::string confinement; // sealed: what held around the describing worker ("Landlock ABI 7, namespaces …")
    // Copies of the plugin's tables, zero-extended to the host's struct sizes.
    std::vector<af_container> containers;
    std::vector<af_codec> codecs;
    std::vector<af_stage> stages;
    std::vector<af_command> commands;
    std::shared_ptr<void> library; // keeps the shared object loaded
};

struct LoadFailure {
    std::filesystem::path path;
    std::string reason;
    bool bundled_name = false; // a third-party plugin refused for a bundled plugin's name: said when loading
};

template <class T> struct Found {
    const T* item = nullptr;
    const LoadedPlugin* plugin = nullptr;
    explicit operator bool() const { return item != nullptr; }
};

class PluginRegistry {
  public:
    PluginRegistry();
    ~PluginRegistry();
    PluginRegistry(const PluginRegistry&) = delete;
    PluginRegistry& operator=(const PluginRegistry&) = delete;

    // $ASSETFORGE_PLUGIN_PATH (':'-separated), then <exe>/../lib/assetforge/plugins,
    // then the build tree's plugin directory. load_default() loads the host's own folders first: a third-party
    // plugin may not take a bundled plugin's name, nor win a tie with it, unless allow_override() names it.
    static std::vector<std::filesystem::path> default_search_path();
    // Where the host's own plugins live: beside the executable (../lib/assetforge/plugins; absent when the
    // executable's folder is unknown), where they were installed, where they were built. Not canonical.
    static std::vector<std::filesystem::path> own_plugin_dirs();
    // A third-party plugin the user trusts over the bundled ones (--plugin-override NAME): it replaces a bundled
    // plugin of its name, and its containers and codecs win ties with theirs. Before loading.
    void allow_override(std::string name) { overrides_.push_back(std::move(name)); }
    // In a plugin worker: the one plugin it serves was accepted by the host (override or not), so it takes the
    // place of a bundled plugin of its name.
    void serve_in_worker() { override_any_ = true; }
    const std::vector<std::string>& overrides() const { return overrides_; }
    void load_default();
    void load_directory(const std::filesystem::path& dir);
    // A third-party library is loaded sealed (in a worker, never in this process) unless --isolate none; the
    // host's own plugins load in process. false → recorded in failures().
    bool load_file(const std::filesystem::path& file);
    // Loads in this process whatever the library: the worker's own load (from /proc/self/fd/N: `given`), and a
    // command of a plugin the user trusts (--plugin-trust). `file` is the name it is known by. Given `file` itself,
    // it loads a sealed copy of the file and hashes that copy (image_fd).
    bool load_in_process(const std::filesystem::path& file, const std::filesystem::path& given);

    const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
    const std::vector<LoadFailure>& failures() const { return failures_; }
    const std::vector<std::filesystem::path>& searched() const { return searched_; }

    // Magic bytes first (highest probe score), extension second; a tie goes to the plugin loaded first, and
    // plugins_ holds the built-in ones, then overriding third-party ones, then bundled ones, then the rest. A
    // third-party plugin's score counts as at most AF_PROBE_MAGIC unless it overrides: it may tie, never outbid.
    // `size` bytes of the file's head (up to 4096), `file_size` the whole file's (probe_size, API 1.4).
    Found<af_container> container_for(const std::filesystem::path& path, const uint8_t* head, uint64_t size,
                                      uint64_t file_size) const;
    Found<af_container> container_by_name(std::string_view name) const;
    Found<af_container> container_for_extension(std::string_view ext) const; // for writing ".dds"
    Found<af_codec> codec_for(uint32_t format) const;
    Found<af_stage> stage(std::string_view name) const;
    Found<af_command> command(std::string_view name) const;

  private:
    void load_files_in(const std::filesystem::path& dir);
    bool load_sealed(const std::filesystem::path& file);
    // Checks a new plugin's name against those loaded and takes it in; false → recorded in failures().
    bool accept(std::unique_ptr<LoadedPlugin> lp);
    std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
    std::vector<std::string> overrides_;
    bool override_any_ = false;
    std::vector<LoadFailure> failures_;
    std::vector<std::filesystem::path> searched_;
};

} // namespace af::host
