// The loadable remote cache module (libassetforge-remote.so): RemoteCache behind the RemoteClient interface.
#include "remote/remote_cache.hpp"
#include "remote/remote_client.hpp"
#include "remote/sha256.hpp"

namespace af::remote {
namespace {

class ModuleClient final : public RemoteClient {
  public:
    explicit ModuleClient(RemoteCacheOptions options) : cache_(std::move(options)) {}

    std::optional<CacheEntry> lookup(const std::string& key) override { return cache_.lookup(key); }

    std::optional<std::vector<FetchedBlob>> fetch(const CacheEntry& entry) override {
        auto blobs = cache_.fetch(entry);
        if (!blobs) return std::nullopt;
        std::vector<FetchedBlob> out;
        out.reserve(blobs->size());
        for (const auto& b : *blobs) out.push_back({b.bytes(), b.owner()});
        return out;
    }

    bool upload(const std::string& key, const std::vector<std::pair<std::string, std::span<const uint8_t>>>& files,
                const std::vector<std::string>& warnings) override {
        return cache_.upload(key, files, warnings);
    }

    bool enabled() const override { return cache_.enabled(); }
    bool uploads() const override { return cache_.uploads(); }

    std::string sha256_hex(std::string_view bytes) const override {
        return remote::sha256_hex(std::span(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size()));
    }

  private:
    RemoteCache cache_;
};

} // namespace
} // namespace af::remote

extern "C" __attribute__((visibility("default"))) af::remote::RemoteClient*
assetforge_remote_client_v1(af::remote::RemoteCacheOptions* options) {
    return new af::remote::ModuleClient(std::move(*options));
}
