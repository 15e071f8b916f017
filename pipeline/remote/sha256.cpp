#include "remote/sha256.hpp"

#include <openssl/evp.h>

#include <new>
#include <stdexcept>

namespace af::remote {

struct Sha256::Ctx {
    EVP_MD_CTX* md = EVP_MD_CTX_new();
    ~Ctx() { EVP_MD_CTX_free(md); }
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
    if (!ctx_->md) throw std::bad_alloc();
    if (EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) throw std::runtime_error("SHA-256 unavailable");
}

Sha256::~Sha256() = default;
Sha256::Sha256(Sha256&&) noexcept = default;
Sha256& Sha256::operator=(Sha256&&) noexcept = default;

void Sha256::update(std::span<const uint8_t> bytes) {
    if (!bytes.empty() && EVP_DigestUpdate(ctx_->md, bytes.data(), bytes.size()) != 1)
        throw std::runtime_error("SHA-256 update failed");
}

std::string Sha256::hex_digest() {
    unsigned char out[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (EVP_DigestFinal_ex(ctx_->md, out, &len) != 1) throw std::runtime_error("SHA-256 final failed");
    static constexpr char digits[] = "0123456789abcdef";
    std::string hex(size_t{len} * 2, '0');
    for (unsigned int i = 0; i < len; ++i) {
        hex[2 * i] = digits[out[i] >> 4];
        hex[2 * i + 1] = digits[out[i] & 15];
    }
    return hex;
}

std::string sha256_hex(std::span<const uint8_t> bytes) {
    Sha256 h;
    h.update(bytes);
    return h.hex_digest();
}

bool is_sha256_hex(const std::string& s) {
    if (s.size() != 64) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

} // namespace af::remote
