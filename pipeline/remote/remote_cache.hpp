// A client for Bazel's HTTP remote cache protocol (ac/ and cas/ over GET and PUT), so that builds on different
// machines can share action outputs through any server that speaks it (bazel-remote, nginx with WebDAV, ...).
//
// The cache is an optimisation: every method reports problems through options.warn and degrades to "miss" or
// "not uploaded"; none throws, and fetch() never hands out bytes that do not match their digest.
// All methods may be called concurrently from any number of threads.
#pragma once

#include "remote/blob_file.hpp"
#include "remote/cache_entry.hpp"
#include "remote/remote_options.hpp"
#include "remote/sha256.hpp"

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace af::remote {

class RemoteCache {
  public:
    explicit RemoteCache(RemoteCacheOptions options);
    ~RemoteCache();
    RemoteCache(const RemoteCache&) = delete;
    RemoteCache& operator=(const RemoteCache&) = delete;

    // The entry stored under ac/<action_key_sha256>; nullopt on a miss and on any failure or invalid entry.
    std::optional<CacheEntry> lookup(const std::string& action_key_sha256);
    // Every blob of the entry, in the order of entry.files, each checked against its digest; nullopt if any is
    // missing or wrong. Bodies stream into files in options.temp_dir (never whole in memory, never longer than
    // the entry says) and come back mapped from there.
    std::optional<std::vector<Blob>> fetch(const CacheEntry& entry);
    // Stores the files' contents in cas/ and then the entry in ac/ (in that order, so a reader that finds the
    // entry can find its blobs). False on failure, and when uploads are off.
    bool upload(const std::string& action_key_sha256,
                const std::vector<std::pair<std::string, std::span<const uint8_t>>>& files,
                const std::vector<std::string>& warnings = {});

    bool enabled() const; // the URL was usable
    bool uploads() const; // enabled() and options.upload
    std::string display_url() const;

    struct Stats {
        size_t hits = 0;     // lookups that returned an entry
        size_t misses = 0;   // lookups answered 404
        size_t errors = 0;   // any failed request or rejected response
        size_t uploaded = 0; // entries stored
        size_t bytes_down = 0;
        size_t bytes_up = 0;
    };
    Stats stats() const;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

} // namespace af::remote
