// The af_host table handed to plugins, and the process-wide settings behind it.
#pragma once

#include "assetforge/plugin_abi.h"

#include <atomic>
#include <cstdint>

namespace af::host {

class PluginRegistry;

struct HostSettings {
    uint64_t max_texture_bytes = 4ull << 30; // per allocation a plugin may request
    uint32_t max_dimension = 65536;
    uint32_t max_surfaces = 1u << 16;
    uint32_t max_items = 1u << 24; // pages/frames/entries one container may yield
    int threads = 0;               // 0 = all cores
};

// Installs the registry whose codecs af_host.convert uses. Call once at start-up.
void set_registry(const PluginRegistry* registry);
const PluginRegistry* registry();

HostSettings& settings();

// What af_host.convert does, for the host's own C++ code: throws af::sdk::Error
// instead of filling an af_error. The host's code passes the registry it
// holds; the C table (a plugin calling back, which cannot hold one) and the
// built-in PNG writer use the installed one.
void convert_surface(const PluginRegistry* registry, const af_surface& src, af_surface& dst,
                     const af_options* options = nullptr);
void convert_surface(const af_surface& src, af_surface& dst, const af_options* options = nullptr);
const af_host* services();
// The table itself, for a plugin worker that serves alloc, log and friends its own way.
af_host& service_table();

// Ctrl-C sets this; plugins see it through af_host.cancelled.
void request_cancel();
bool cancel_requested();
// For a process that goes on after a stop (tests of cancellation).
void clear_cancel();

} // namespace af::host
