// What a remote cache entry says: the output files of one action, each named by the digest of its contents.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace af::remote {

struct Digest {
    std::string hash; // lowercase hex SHA-256
    int64_t size = 0;
    bool operator==(const Digest&) const = default;
};

struct CachedFile {
    std::string path; // relative, '/'-separated
    Digest digest;
    bool operator==(const CachedFile&) const = default;
};

struct CacheEntry {
    std::vector<CachedFile> files;
    // What the action discarded (alpha, a channel, bit depth) when it made these files: a hit reports them as a
    // local build would. Travels as the ActionResult's stderr, one a line; entries without it have none.
    std::vector<std::string> warnings = {};
    bool operator==(const CacheEntry&) const = default;
};

} // namespace af::remote
