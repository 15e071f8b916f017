// How a remote cache client is set up: shared by the client itself (remote_cache.hpp) and by whoever opens it
// through the loadable module (remote_client.hpp), which must not pull in the client's headers.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace af::remote {

struct RemoteCacheOptions {
    // http(s)://host[:port][/prefix]; user:pass@ in it is used for basic auth and never printed.
    // Empty: no cache (enabled() is false, nothing is warned).
    std::string url;
    // The URL came from a pipeline file, not from the command line or the environment that holds the
    // credentials: the credentials (token, user and password, netrc) are sent only when its host is listed in
    // ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS; otherwise none are, and one warning says so when there were some.
    bool url_from_pipeline = false;
    bool upload = true;             // false: a read-only consumer (CI caches written by trusted machines only)
    long connect_timeout_ms = 2000; // <= 0: the default
    long timeout_ms = 20000;        // per request; <= 0: the default
    int retries = 2;                // extra attempts after a connection failure or a 5xx, with exponential backoff
    // Each distinct kind of problem is reported once per RemoteCache; messages never contain credentials.
    // Calls are serialised, from whichever thread met the problem.
    std::function<void(const std::string&)> warn;
    // A cap per blob, so an entry cannot make fetch() fill the disk; <= 0: the default.
    int64_t max_blob_bytes = int64_t{1} << 30;
    // Where fetched blobs are written as they arrive (unnamed files); empty: the system's temporary folder.
    std::string temp_dir;
};

} // namespace af::remote
