// Small helpers shared by the remote cache tests.
#pragma once

#include "remote/remote_cache.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <mutex>
#include <optional>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace af::remote::test {

inline std::vector<uint8_t> bytes_of(const std::string& s) { return {s.begin(), s.end()}; }
inline std::span<const uint8_t> span_of(const std::vector<uint8_t>& v) { return {v.data(), v.size()}; }

inline std::vector<uint8_t> random_bytes(size_t n, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::vector<uint8_t> out(n);
    for (auto& b : out) b = static_cast<uint8_t>(rng());
    return out;
}

// An action key as the engine would make one: the SHA-256 of some description of the action.
inline std::string key_for(const std::string& what) { return sha256_hex(span_of(bytes_of(what))); }

// The space-separated fields of an nginx access log line (see tests/support/nginx-cache.sh).
inline std::vector<std::string> log_fields(const std::string& line) {
    std::vector<std::string> out;
    for (size_t at = 0; at <= line.size();) {
        size_t end = line.find(' ', at);
        if (end == std::string::npos) end = line.size();
        out.push_back(line.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

// stdout of a shell command; nullopt when it exits non-zero.
inline std::optional<std::string> run_capture(const std::string& cmd) {
    FILE* pipe = popen(cmd.c_str(), "r");
    if (!pipe) return std::nullopt;
    std::string out;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) out.append(buf, n);
    return pclose(pipe) == 0 ? std::optional(out) : std::nullopt;
}

// Collects warnings (RemoteCache serialises its calls to the sink).
struct Warnings {
    std::vector<std::string> seen;
    std::function<void(const std::string&)> sink() {
        return [this](const std::string& m) { seen.push_back(m); };
    }
    bool any_contains(const std::string& needle) const {
        for (const auto& m : seen)
            if (m.find(needle) != std::string::npos) return true;
        return false;
    }
};

// Sets an environment variable for one scope (the cache reads its credentials when constructed).
class ScopedEnv {
  public:
    ScopedEnv(const char* name, const char* value) : name_(name) {
        if (const char* old = std::getenv(name)) old_ = old;
        if (value)
            setenv(name, value, 1);
        else
            unsetenv(name);
    }
    ~ScopedEnv() {
        if (old_)
            setenv(name_, old_->c_str(), 1);
        else
            unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

  private:
    const char* name_;
    std::optional<std::string> old_;
};

// Credentials and proxies from the developer's own environment must not reach the tests' requests.
struct CleanEnvironment {
    ScopedEnv token{"ASSETFORGE_REMOTE_CACHE_TOKEN", nullptr};
    ScopedEnv user{"ASSETFORGE_REMOTE_CACHE_USER", nullptr};
    ScopedEnv password{"ASSETFORGE_REMOTE_CACHE_PASSWORD", nullptr};
    ScopedEnv netrc{"NETRC", "/dev/null"};
    ScopedEnv no_proxy{"NO_PROXY", "127.0.0.1,localhost"};
    ScopedEnv no_proxy_lower{"no_proxy", "127.0.0.1,localhost"};
};

// A loopback port that refuses connections: bound (so nothing else takes it) but never listening.
class DeadPort {
  public:
    DeadPort() : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        socklen_t len = sizeof addr;
        if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0)
            std::abort();
        port_ = ntohs(addr.sin_port);
    }
    ~DeadPort() { close(fd_); }
    DeadPort(const DeadPort&) = delete;
    DeadPort& operator=(const DeadPort&) = delete;
    std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }

  private:
    int fd_;
    int port_ = 0;
};

// Every file of an upload: (path, bytes).
using Files = std::vector<std::pair<std::string, std::span<const uint8_t>>>;

// Short timeouts: a test server answers at once or not at all.
inline RemoteCacheOptions options_for(const std::string& url, Warnings& warnings) {
    RemoteCacheOptions o;
    o.url = url;
    o.warn = warnings.sink();
    o.connect_timeout_ms = 1000;
    o.timeout_ms = 5000;
    return o;
}

} // namespace af::remote::test
