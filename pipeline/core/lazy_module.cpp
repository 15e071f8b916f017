#include "core/lazy_module.hpp"

#include <dlfcn.h>
#include <unistd.h>

#include <filesystem>
#include <map>
#include <mutex>
#include <vector>

namespace af {
namespace fs = std::filesystem;

fs::path executable_dir() {
    char buf[4096];
    ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n <= 0) return {};
    buf[n] = 0;
    return fs::path(buf).parent_path();
}

namespace {

std::vector<fs::path> candidates(const std::string& file) {
    std::vector<fs::path> c;
    if (const fs::path exe = executable_dir(); !exe.empty())
        c.push_back((exe / ".." / "lib" / "assetforge" / file).lexically_normal());
    c.push_back(fs::path(AF_MODULE_INSTALL_DIR) / file);
    c.push_back(fs::path(AF_MODULE_BUILD_DIR) / file);
    return c;
}

struct Loaded {
    void* handle = nullptr;
    std::string error;
};

Loaded load(const std::string& file) {
    Loaded l;
    std::string tried;
    for (const auto& path : candidates(file)) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            tried += (tried.empty() ? "" : ", ") + path.native();
            continue;
        }
        l.handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
        if (!l.handle) {
            const char* e = ::dlerror();
            l.error = "cannot load " + path.native() + ": " + (e ? e : "unknown error");
        }
        return l;
    }
    l.error = "the module " + file + " is not installed (looked for " + tried + ")";
    return l;
}

} // namespace

void* module_symbol(const std::string& file, const char* symbol, std::string& error) {
    static std::mutex mu;
    static std::map<std::string, Loaded> modules;
    std::lock_guard lk(mu);
    auto it = modules.find(file);
    if (it == modules.end()) it = modules.emplace(file, load(file)).first;
    if (!it->second.handle) {
        error = it->second.error;
        return nullptr;
    }
    void* s = ::dlsym(it->second.handle, symbol);
    if (!s) error = file + " has no " + symbol + " (a module of another version?)";
    return s;
}

} // namespace af
