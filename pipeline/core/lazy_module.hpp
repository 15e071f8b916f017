// Parts of the tool that need heavy libraries (libcurl and its ~30, libzip with OpenSSL) are shared modules
// loaded on first use, not libraries the executable links: every library linked is loaded and relocated at each
// start, and those cost a build that never uses them more than a no-op's whole work on a small tree.
#pragma once

#include <filesystem>
#include <string>

namespace af {

// The folder of the running executable (empty if /proc cannot say): plugins and modules are found from it.
std::filesystem::path executable_dir();

// The symbol `symbol` of the module file `file` (e.g. "libassetforge-zip.so"), looked for in lib/assetforge/
// beside the executable's folder (as built and as installed), then where it was installed, then where it was
// built. Loaded once, never unloaded (what it hands out may point into it). Null with `error` set (naming the
// file) when it cannot be found or loaded.
void* module_symbol(const std::string& file, const char* symbol, std::string& error);

} // namespace af
