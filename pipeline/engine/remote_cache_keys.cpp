#include "engine/remote_cache_keys.hpp"

#include "remote/remote_client.hpp"

#include <filesystem>

namespace af::engine {

namespace {
// Bump when what an entry means changes (layout of the description below, or
// the engine's bytes for the same key).
constexpr const char* kRemoteKeyVersion = "assetforge-remote-1";
} // namespace

std::string remote_action_key(const remote::RemoteClient& client, const Hash128& job_signature,
                              const Hash128& input_hash, const std::string& plugin_identities) {
    std::string d = kRemoteKeyVersion;
    d += '\n';
    d += job_signature.hex();
    d += '\n';
    d += input_hash.hex();
    d += '\n';
    d += plugin_identities;
    return client.sha256_hex(d);
}

bool cached_path_allowed(const std::string& project_root, const std::string& out_base, const std::string& rel) {
    if (rel.empty() || rel[0] == '/') return false;
    const std::string abs = project_root + "/" + rel;
    if (std::filesystem::path(abs).lexically_normal().native() != abs) return false; // "a/../b", "a//b", "./a"
    return abs.size() > out_base.size() && abs.compare(0, out_base.size(), out_base) == 0 &&
           (out_base == "/" || abs[out_base.size()] == '/');
}

} // namespace af::engine
