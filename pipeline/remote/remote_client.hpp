// The remote cache as the build sees it: an interface, and the function that opens one.
//
// The client (libcurl, OpenSSL, protobuf and their ~30 libraries) lives in a module loaded only when a build
// asks for a remote cache: linked into the executable, loading those libraries cost every run ~8 ms before
// main(), a third of a no-op build of 2,000 files. The module and the executable are built together from this
// tree, so the interface is plain C++; third parties never see it.
#pragma once

#include "remote/cache_entry.hpp"
#include "remote/remote_options.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace af::remote {

// A fetched blob's bytes and what keeps them alive (a mapping of the file they streamed into).
struct FetchedBlob {
    std::span<const uint8_t> bytes;
    std::shared_ptr<const void> owner;
};

// Same promises as RemoteCache (remote_cache.hpp): nothing throws, problems go to options.warn, any thread.
class RemoteClient {
  public:
    virtual ~RemoteClient() = default;
    virtual std::optional<CacheEntry> lookup(const std::string& action_key_sha256) = 0;
    virtual std::optional<std::vector<FetchedBlob>> fetch(const CacheEntry& entry) = 0;
    virtual bool upload(const std::string& action_key_sha256,
                        const std::vector<std::pair<std::string, std::span<const uint8_t>>>& files,
                        const std::vector<std::string>& warnings) = 0;
    virtual bool enabled() const = 0;
    virtual bool uploads() const = 0;
    // The lowercase hex SHA-256 of bytes: how the protocol names actions and blobs.
    virtual std::string sha256_hex(std::string_view bytes) const = 0;
};

// Loads the client module (once per process) and opens a client with these options. Null, with `error` set
// naming the module, when it cannot be loaded.
std::unique_ptr<RemoteClient> open_remote_client(RemoteCacheOptions options, std::string& error);

// The module's one entry point (C linkage, so dlsym finds it by this name).
extern "C" using RemoteClientFactory = RemoteClient * (*)(RemoteCacheOptions*);
inline constexpr const char* kRemoteClientFactory = "assetforge_remote_client_v1";
inline constexpr const char* kRemoteModule = "libassetforge-remote.so";

} // namespace af::remote
