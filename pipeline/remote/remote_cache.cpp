#include "remote/remote_cache.hpp"

#include "remote/action_result.hpp"
#include "remote/blob_file.hpp"
#include "remote/endpoint.hpp"
#include "remote/entry_checks.hpp"
#include "remote/http_transport.hpp"
#include "remote/warn_once.hpp"

#include <atomic>
#include <chrono>
#include <map>
#include <string_view>

namespace af::remote {

namespace {

// Far above any real ActionResult (a few hundred bytes per output file), far below a memory problem.
constexpr size_t kMaxActionResultBytes = 16u << 20;
// PUT replies carry no data we use.
constexpr size_t kMaxPutReply = 64u << 10;
// After a request failed for want of a working server, further calls skip the network for this long, so a
// build against a dead cache pays the connection timeout and retries once, not once per action.
constexpr std::chrono::seconds kPause{30};
// Bazel caches treat the empty blob as always present, so it is neither uploaded nor fetched.
const std::string kEmptySha256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";

int64_t now_ns() {
    return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

std::string_view as_chars(const std::vector<uint8_t>& bytes) {
    return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

} // namespace

struct RemoteCache::Impl {
    RemoteCacheOptions options;
    Endpoint endpoint;
    WarnOnce warn;
    std::unique_ptr<HttpTransport> transport; // null when the URL is unusable
    std::atomic<int64_t> paused_until_ns{0};
    std::atomic<size_t> hits{0}, misses{0}, errors{0}, uploaded{0}, bytes_down{0}, bytes_up{0};

    explicit Impl(RemoteCacheOptions opts)
        : options(std::move(opts)), endpoint(parse_endpoint(options.url, !options.url_from_pipeline)),
          warn(options.warn, endpoint.secrets()) {
        const RemoteCacheOptions defaults;
        if (options.connect_timeout_ms <= 0) options.connect_timeout_ms = defaults.connect_timeout_ms;
        if (options.timeout_ms <= 0) options.timeout_ms = defaults.timeout_ms;
        if (options.retries < 0) options.retries = 0;
        if (options.max_blob_bytes <= 0) options.max_blob_bytes = defaults.max_blob_bytes;
        if (options.url.empty()) return; // no cache configured: disabled, and nothing to warn about
        if (!endpoint.error.empty()) {
            warn("url", "remote cache disabled: " + endpoint.error);
            return;
        }
        if (endpoint.credentials_withheld)
            warn("credentials-withheld",
                 "remote cache " + endpoint.base_url +
                     ": the URL comes from the pipeline file, so the credentials in the environment are not sent to "
                     "it (set the URL with --remote-cache or ASSETFORGE_REMOTE_CACHE, or list its host in "
                     "ASSETFORGE_REMOTE_CACHE_TRUSTED_HOSTS)");
        TransportOptions t;
        t.connect_timeout_ms = options.connect_timeout_ms;
        t.timeout_ms = options.timeout_ms;
        t.retries = options.retries;
        transport = std::make_unique<HttpTransport>(t, endpoint);
    }

    void problem(const std::string& kind, const std::string& message) {
        ++errors;
        warn(kind, "remote cache " + endpoint.base_url + ": " + message);
    }

    bool paused() {
        if (now_ns() >= paused_until_ns.load()) return false;
        ++errors;
        return true;
    }

    void pause() { paused_until_ns = now_ns() + std::chrono::duration_cast<std::chrono::nanoseconds>(kPause).count(); }

    // Reports a request that did not get a usable answer; a server that is down, slow or failing is paused.
    void transfer_failed(const HttpResponse& r, const std::string& what) {
        const std::string tries = r.attempts > 1 ? " after " + std::to_string(r.attempts) + " attempts" : "";
        const std::string skip = "; not using the cache for " + std::to_string(kPause.count()) + " s";
        switch (r.outcome) {
        case Outcome::NoResponse:
            pause();
            problem("unreachable", what + " got no answer (" + r.error + ")" + tries + skip);
            return;
        case Outcome::TimedOut:
            pause();
            problem("timeout", what + " did not finish within " + std::to_string(options.timeout_ms) + " ms" + skip);
            return;
        case Outcome::HttpError:
            if (r.status >= 500) pause();
            problem("http-" + std::to_string(r.status),
                    what + " failed with HTTP " + std::to_string(r.status) + tries +
                        (r.status == 401 || r.status == 403 ? " (check the cache credentials)" : "") +
                        (r.status >= 500 ? skip : ""));
            return;
        case Outcome::TooLarge:
            problem("too-large", what + ": the response is larger than allowed; ignored");
            return;
        default:
            problem("failed", what + " failed (" + r.error + ")");
        }
    }

    std::optional<CacheEntry> lookup(const std::string& key) {
        if (!transport) return std::nullopt;
        if (!is_sha256_hex(key)) {
            problem("bad-key-lookup", "an action key is not a lowercase hex SHA-256; not looked up");
            return std::nullopt;
        }
        if (paused()) return std::nullopt;
        const std::string what = "GET ac/" + key;
        HttpResponse r = transport->perform({{false, endpoint.base_url + "/ac/" + key, {}, kMaxActionResultBytes}})[0];
        bytes_down += r.received;
        if (r.outcome == Outcome::NotFound) {
            ++misses;
            return std::nullopt;
        }
        if (r.outcome != Outcome::Ok) {
            transfer_failed(r, what);
            return std::nullopt;
        }
        std::string why;
        std::optional<CacheEntry> entry = decode_action_result(as_chars(r.body), &why);
        if (!entry) {
            problem("ac: " + why, "the entry ac/" + key + " " + why + "; treated as a miss");
            return std::nullopt;
        }
        if (auto p = check_entry(*entry, options.max_blob_bytes)) {
            problem(p->kind, "the entry ac/" + key + " " + p->detail + "; treated as a miss");
            return std::nullopt;
        }
        ++hits;
        return entry;
    }

    std::optional<std::vector<Blob>> fetch(const CacheEntry& entry) {
        if (!transport) return std::nullopt;
        if (auto p = check_entry(entry, options.max_blob_bytes)) {
            problem(p->kind, "not fetching an entry that " + p->detail);
            return std::nullopt;
        }
        // One request per distinct blob: outputs with equal contents share it. Each body streams into a file of
        // its own, hashed as it arrives, and may not grow past the size the entry declares.
        std::map<std::string, size_t> slot_of;
        std::vector<HttpRequest> requests;
        std::vector<int64_t> sizes;
        std::vector<std::unique_ptr<BlobWriter>> writers;
        for (const CachedFile& f : entry.files) {
            if (f.digest.size == 0) {
                if (f.digest.hash == kEmptySha256) continue;
                problem("cas-content", "an entry names an empty blob by a hash that is not the empty hash");
                return std::nullopt;
            }
            auto [it, added] = slot_of.emplace(f.digest.hash, requests.size());
            if (!added) {
                if (sizes[it->second] == f.digest.size) continue;
                problem("entry-digest", "an entry gives one blob two sizes");
                return std::nullopt;
            }
            try {
                writers.push_back(std::make_unique<BlobWriter>(options.temp_dir));
            } catch (const std::runtime_error& e) {
                problem("temp-file", std::string(e.what()) + "; treated as a miss");
                return std::nullopt;
            }
            HttpRequest req{false, endpoint.base_url + "/cas/" + f.digest.hash, {}, static_cast<size_t>(f.digest.size)};
            req.sink = writers.back().get();
            requests.push_back(std::move(req));
            sizes.push_back(f.digest.size);
        }
        if (!requests.empty() && paused()) return std::nullopt;
        std::vector<HttpResponse> responses =
            requests.empty() ? std::vector<HttpResponse>{} : transport->perform(requests);
        bool all_good = true;
        for (auto& [hash, slot] : slot_of) {
            const HttpResponse& r = responses[slot];
            bytes_down += r.received;
            if (!all_good) continue;
            all_good = false;
            const std::string name = "cas/" + hash;
            if (r.outcome == Outcome::NotFound) {
                problem("cas-missing", "the blob " + name + " named by an entry is missing; treated as a miss");
            } else if (r.outcome == Outcome::TooLarge) {
                problem("cas-size", "the blob " + name + " is longer than its digest says; treated as a miss");
            } else if (r.outcome != Outcome::Ok) {
                transfer_failed(r, "GET " + name);
            } else if (writers[slot]->size() != sizes[slot]) {
                problem("cas-truncated", "the blob " + name + " has " + std::to_string(writers[slot]->size()) +
                                             " bytes where its digest says " + std::to_string(sizes[slot]) +
                                             "; treated as a miss");
            } else if (writers[slot]->hex_digest() != hash) {
                problem("cas-content", "the blob " + name + " does not hash to its name; treated as a miss");
            } else {
                all_good = true;
            }
        }
        if (!all_good) return std::nullopt;
        std::vector<Blob> fetched;
        fetched.reserve(writers.size());
        for (auto& w : writers) fetched.push_back(w->finish());
        std::vector<Blob> blobs;
        blobs.reserve(entry.files.size());
        for (const CachedFile& f : entry.files) {
            auto it = slot_of.find(f.digest.hash);
            blobs.push_back(it == slot_of.end() ? Blob() : fetched[it->second]);
        }
        return blobs;
    }

    // Turns anything thrown inside (allocation failure, an OpenSSL error) into a warning and the fallback.
    template <class Result, class Body> Result guarded(const char* op, Result fallback, Body body) {
        try {
            return body();
        } catch (const std::exception& e) {
            problem("internal", std::string(op) + " failed: " + e.what());
        } catch (...) {
            problem("internal", std::string(op) + " failed");
        }
        return fallback;
    }

    bool upload(const std::string& key, const std::vector<std::pair<std::string, std::span<const uint8_t>>>& files,
                const std::vector<std::string>& warnings) {
        if (!transport || !options.upload) return false;
        if (!is_sha256_hex(key)) {
            problem("bad-key-upload", "an action key is not a lowercase hex SHA-256; not uploaded");
            return false;
        }
        CacheEntry entry;
        entry.files.reserve(files.size());
        for (const auto& [path, bytes] : files)
            entry.files.push_back({path, {sha256_hex(bytes), static_cast<int64_t>(bytes.size())}});
        entry.warnings = warnings;
        if (auto p = check_entry(entry, options.max_blob_bytes)) {
            problem("upload-" + p->kind, "not uploading ac/" + key + ": it " + p->detail);
            return false;
        }
        if (paused()) return false;

        std::map<std::string, bool> seen;
        std::vector<HttpRequest> blob_puts;
        for (size_t i = 0; i < files.size(); ++i) {
            const std::string& hash = entry.files[i].digest.hash;
            if (files[i].second.empty() || !seen.emplace(hash, true).second) continue;
            blob_puts.push_back({true, endpoint.base_url + "/cas/" + hash, files[i].second, kMaxPutReply});
        }
        if (!blob_puts.empty()) {
            std::vector<HttpResponse> responses = transport->perform(blob_puts);
            for (size_t i = 0; i < responses.size(); ++i) {
                if (responses[i].outcome == Outcome::Ok) {
                    bytes_up += blob_puts[i].body.size();
                    continue;
                }
                transfer_failed(responses[i], "PUT " + blob_puts[i].url.substr(endpoint.base_url.size() + 1));
                return false;
            }
        }
        // Only now: an entry visible before its blobs would be a hit whose fetch fails.
        const std::string result = encode_action_result(entry);
        const std::span<const uint8_t> result_bytes(reinterpret_cast<const uint8_t*>(result.data()), result.size());
        HttpResponse r = transport->perform({{true, endpoint.base_url + "/ac/" + key, result_bytes, kMaxPutReply}})[0];
        if (r.outcome != Outcome::Ok) {
            transfer_failed(r, "PUT ac/" + key);
            return false;
        }
        bytes_up += result.size();
        ++uploaded;
        return true;
    }
};

RemoteCache::RemoteCache(RemoteCacheOptions options) {
    try {
        impl_ = std::make_unique<Impl>(std::move(options));
    } catch (...) {
        impl_.reset(); // behaves as disabled
    }
}

RemoteCache::~RemoteCache() = default;

std::optional<CacheEntry> RemoteCache::lookup(const std::string& action_key_sha256) {
    if (!impl_) return std::nullopt;
    return impl_->guarded<std::optional<CacheEntry>>("lookup", std::nullopt,
                                                     [&] { return impl_->lookup(action_key_sha256); });
}

std::optional<std::vector<Blob>> RemoteCache::fetch(const CacheEntry& entry) {
    if (!impl_) return std::nullopt;
    return impl_->guarded<std::optional<std::vector<Blob>>>("fetch", std::nullopt, [&] { return impl_->fetch(entry); });
}

bool RemoteCache::upload(const std::string& action_key_sha256,
                         const std::vector<std::pair<std::string, std::span<const uint8_t>>>& files,
                         const std::vector<std::string>& warnings) {
    if (!impl_) return false;
    return impl_->guarded<bool>("upload", false, [&] { return impl_->upload(action_key_sha256, files, warnings); });
}

bool RemoteCache::enabled() const { return impl_ && impl_->transport; }

bool RemoteCache::uploads() const { return enabled() && impl_->options.upload; }

std::string RemoteCache::display_url() const { return impl_ ? impl_->endpoint.base_url : std::string(); }

RemoteCache::Stats RemoteCache::stats() const {
    if (!impl_) return {};
    return {impl_->hits, impl_->misses, impl_->errors, impl_->uploaded, impl_->bytes_down, impl_->bytes_up};
}

} // namespace af::remote
