#include "core/lazy_module.hpp"
#include "remote/remote_client.hpp"

namespace af::remote {

std::unique_ptr<RemoteClient> open_remote_client(RemoteCacheOptions options, std::string& error) {
    auto make = reinterpret_cast<RemoteClientFactory>(module_symbol(kRemoteModule, kRemoteClientFactory, error));
    if (!make) return nullptr;
    return std::unique_ptr<RemoteClient>(make(&options));
}

} // namespace af::remote
