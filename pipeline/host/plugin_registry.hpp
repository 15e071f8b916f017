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
    Hash128 binary_hash; // mixed into action keys: a rebuilt plugin rebuilds its outputs
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
    // then the build tree's plugin directory. A plugin name seen twice keeps the first.
    static std::vector<std::filesystem::path> default_search_path();
    // Where the host's own plugins live: beside the executable (../lib/assetforge/plugins; absent when the
    // executable's folder is unknown), where they were installed, where they were built. Not canonical.
    static std::vector<std::filesystem::path> own_plugin_dirs();
    void load_default();
    void load_directory(const std::filesystem::path& dir);
    bool load_file(const std::filesystem::path& file); // false → recorded in failures()

    const std::vector<std::unique_ptr<LoadedPlugin>>& plugins() const { return plugins_; }
    const std::vector<LoadFailure>& failures() const { return failures_; }
    const std::vector<std::filesystem::path>& searched() const { return searched_; }

    // Magic bytes first (highest probe score), extension second.
    // `size` bytes of the file's head (up to 4096), `file_size` the whole file's (probe_size, API 1.4).
    Found<af_container> container_for(const std::filesystem::path& path, const uint8_t* head, uint64_t size,
                                      uint64_t file_size) const;
    Found<af_container> container_by_name(std::string_view name) const;
    Found<af_container> container_for_extension(std::string_view ext) const; // for writing ".dds"
    Found<af_codec> codec_for(uint32_t format) const;
    Found<af_stage> stage(std::string_view name) const;
    Found<af_command> command(std::string_view name) const;

  private:
    std::vector<std::unique_ptr<LoadedPlugin>> plugins_;
    std::vector<LoadFailure> failures_;
    std::vector<std::filesystem::path> searched_;
};

} // namespace af::host
