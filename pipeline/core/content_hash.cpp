#include "core/content_hash.hpp"

#include "assetforge/plugin.hpp"

#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <unistd.h>

namespace af {

std::string Hash128::hex() const {
    // By hand: a no-op build formats tens of thousands of these, and snprintf shows in profiles.
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string s(32, '0');
    for (int i = 0; i < 16; ++i) {
        s[size_t(15 - i)] = kDigits[(hi >> (4 * i)) & 15];
        s[size_t(31 - i)] = kDigits[(lo >> (4 * i)) & 15];
    }
    return s;
}

Hash128 Hash128::from_hex(std::string_view s) {
    if (s.size() != 32) return {};
    Hash128 h;
    for (size_t i = 0; i < 32; ++i) {
        char c = s[i];
        int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
        if (v < 0) return {};
        uint64_t& w = i < 16 ? h.hi : h.lo;
        w = (w << 4) | uint64_t(v);
    }
    return h;
}

Hash128 hash_bytes(std::span<const uint8_t> data) {
    XXH128_hash_t h = XXH3_128bits(data.data(), data.size());
    return {h.low64, h.high64};
}

Hash128 hash_string(std::string_view s) {
    XXH128_hash_t h = XXH3_128bits(s.data(), s.size());
    return {h.low64, h.high64};
}

Hasher::Hasher() : state_(XXH3_createState()) {
    if (!state_) throw std::bad_alloc();
    XXH3_128bits_reset(static_cast<XXH3_state_t*>(state_));
}
Hasher::~Hasher() { XXH3_freeState(static_cast<XXH3_state_t*>(state_)); }
void Hasher::update(const void* data, size_t size) {
    XXH3_128bits_update(static_cast<XXH3_state_t*>(state_), data, size);
}
void Hasher::field(std::string_view s) {
    uint64_t n = s.size();
    update(&n, sizeof n);
    update(s.data(), s.size());
}
Hash128 Hasher::digest() const {
    XXH128_hash_t h = XXH3_128bits_digest(static_cast<XXH3_state_t*>(state_));
    return {h.low64, h.high64};
}

Hash128 hash_file(const std::filesystem::path& path) {
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, path.string() + ": cannot open: " + strerror(errno));
    Hasher h;
    // Small and not zeroed: a fresh 1 MiB buffer (memset, then page faults of memory malloc maps anew each time)
    // cost more than hashing most textures, and a build hashes every input it has not seen.
    constexpr size_t kChunk = 64 << 10;
    auto buf = std::make_unique_for_overwrite<char[]>(kChunk);
    for (;;) {
        ssize_t n = ::read(fd, buf.get(), kChunk);
        if (n < 0) {
            if (errno == EINTR) continue;
            int e = errno;
            ::close(fd);
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET, path.string() + ": read failed: " + strerror(e));
        }
        if (n == 0) break;
        h.update(buf.get(), size_t(n));
    }
    ::close(fd);
    return h.digest();
}

} // namespace af
