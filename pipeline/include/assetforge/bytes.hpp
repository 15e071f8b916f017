// Little-endian byte access with bounds checks: ByteReader for parsing input
// (out of range is the input's fault: AF_ERR_INVALID_DATA at that offset),
// ByteWriter for building output. Header-only.
#pragma once

#include "assetforge/error.hpp"

#include <cstdint>
#include <cstring>
#include <span>
#include <utility>
#include <vector>

namespace af::sdk {

// Little-endian readers that never read past the end.
class ByteReader {
  public:
    ByteReader(const uint8_t* data, uint64_t size) : p_(data), n_(size) {}
    uint64_t size() const { return n_; }
    const uint8_t* data() const { return p_; }
    void need(uint64_t off, uint64_t len, const char* what) const {
        if (off > n_ || len > n_ - off)
            invalid(off, format("truncated: %s needs %llu bytes at offset %llu, file has %llu", what,
                                (unsigned long long)len, (unsigned long long)off, (unsigned long long)n_));
    }
    uint8_t u8(uint64_t off) const {
        need(off, 1, "u8");
        return p_[off];
    }
    uint16_t u16(uint64_t off) const {
        need(off, 2, "u16");
        return uint16_t(p_[off] | p_[off + 1] << 8);
    }
    uint32_t u32(uint64_t off) const {
        need(off, 4, "u32");
        return uint32_t(p_[off]) | uint32_t(p_[off + 1]) << 8 | uint32_t(p_[off + 2]) << 16 |
               uint32_t(p_[off + 3]) << 24;
    }
    uint64_t u64(uint64_t off) const { return uint64_t(u32(off)) | uint64_t(u32(off + 4)) << 32; }
    float f32(uint64_t off) const {
        uint32_t v = u32(off);
        float f;
        memcpy(&f, &v, 4);
        return f;
    }

  private:
    const uint8_t* p_;
    uint64_t n_;
};

// Little-endian output that grows as it is written. patch_*() overwrite bytes
// already written (a size or offset known only later); a patch outside them is
// a bug in the plugin, not in its input, so it fails with AF_ERR_INTERNAL.
class ByteWriter {
  public:
    ByteWriter() = default;
    explicit ByteWriter(uint64_t reserve) { b_.reserve(reserve); }
    uint64_t size() const { return b_.size(); }
    const uint8_t* data() const { return b_.data(); }
    const std::vector<uint8_t>& bytes() const& { return b_; }
    std::vector<uint8_t> bytes() && { return std::move(b_); }

    void u8(uint8_t v) { b_.push_back(v); }
    void u16(uint16_t v) { put(v, 2); }
    void u32(uint32_t v) { put(v, 4); }
    void u64(uint64_t v) { put(v, 8); }
    void f32(float f) {
        uint32_t v;
        memcpy(&v, &f, 4);
        put(v, 4);
    }
    void append(const void* p, uint64_t n) {
        const auto* c = static_cast<const uint8_t*>(p);
        b_.insert(b_.end(), c, c + n);
    }
    void append(std::span<const uint8_t> s) { append(s.data(), s.size()); }
    void fill(uint8_t v, uint64_t n) { b_.insert(b_.end(), n, v); }

    void need(uint64_t off, uint64_t len, const char* what) const {
        if (off > b_.size() || len > b_.size() - off)
            fail(AF_ERR_INTERNAL, AF_NO_OFFSET,
                 format("patching %s: %llu bytes at offset %llu, only %llu written", what, (unsigned long long)len,
                        (unsigned long long)off, (unsigned long long)b_.size()));
    }
    void patch_u8(uint64_t off, uint8_t v) { patch(off, v, 1, "u8"); }
    void patch_u16(uint64_t off, uint16_t v) { patch(off, v, 2, "u16"); }
    void patch_u32(uint64_t off, uint32_t v) { patch(off, v, 4, "u32"); }
    void patch_u64(uint64_t off, uint64_t v) { patch(off, v, 8, "u64"); }
    void patch_f32(uint64_t off, float f) {
        uint32_t v;
        memcpy(&v, &f, 4);
        patch(off, v, 4, "f32");
    }

  private:
    void put(uint64_t v, int n) {
        for (int i = 0; i < n; ++i) b_.push_back(uint8_t(v >> (8 * i)));
    }
    void patch(uint64_t off, uint64_t v, int n, const char* what) {
        need(off, uint64_t(n), what);
        for (int i = 0; i < n; ++i) b_[off + i] = uint8_t(v >> (8 * i));
    }
    std::vector<uint8_t> b_;
};

} // namespace af::sdk
