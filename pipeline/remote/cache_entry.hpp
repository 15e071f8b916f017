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
    bool operator==(const CacheEntry&) const = default;
};

} // namespace af::remote
