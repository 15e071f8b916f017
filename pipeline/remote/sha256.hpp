// SHA-256 as the remote cache names things: blobs in cas/ and action keys in ac/ are lowercase hex digests.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>

namespace af::remote {

// Incremental, for callers that hash a file while streaming it.
class Sha256 {
  public:
    Sha256();
    ~Sha256();
    Sha256(Sha256&&) noexcept;
    Sha256& operator=(Sha256&&) noexcept;
    void update(std::span<const uint8_t> bytes);
    // Ends this hash; the object may not be updated afterwards.
    std::string hex_digest();

  private:
    struct Ctx;
    std::unique_ptr<Ctx> ctx_;
};

std::string sha256_hex(std::span<const uint8_t> bytes);

// 64 lowercase hex digits: the only form put into a URL, so a caller's string cannot reach other paths.
bool is_sha256_hex(const std::string& s);

} // namespace af::remote
