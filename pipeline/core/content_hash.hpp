// Content hashes (XXH3-128): fast enough to hash every input of a large tree.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>

namespace af {

struct Hash128 {
    uint64_t lo = 0, hi = 0;
    std::string hex() const;
    static Hash128 from_hex(std::string_view s); // zero hash if malformed
    bool operator==(const Hash128&) const = default;
};

Hash128 hash_bytes(std::span<const uint8_t> data);
Hash128 hash_string(std::string_view s);
Hash128 hash_file(const std::filesystem::path& path); // streams; throws af::sdk::Error on I/O failure

class Hasher {
  public:
    Hasher();
    ~Hasher();
    Hasher(const Hasher&) = delete;
    Hasher& operator=(const Hasher&) = delete;
    void update(const void* data, size_t size);
    void update(std::string_view s) { update(s.data(), s.size()); }
    // Length-prefixed, so ("ab","c") and ("a","bc") differ.
    void field(std::string_view s);
    Hash128 digest() const;

  private:
    void* state_;
};

} // namespace af
