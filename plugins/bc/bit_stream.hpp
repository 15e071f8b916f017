// Little-endian 128-bit block as a bit stream (bit 0 = LSB of byte 0), the
// order every BPTC field is stored in.
#pragma once

#include <cstdint>
#include <cstring>

namespace af::bc {

class BitReader128 {
public:
    explicit BitReader128(const uint8_t in[16]) {
        memcpy(&lo_, in, 8);
        memcpy(&hi_, in + 8, 8);
    }
    // n in 0..32.
    uint32_t read(int n) {
        uint64_t v;
        if (pos_ >= 64) v = hi_ >> (pos_ - 64);
        else if (pos_ == 0) v = lo_;
        else v = (lo_ >> pos_) | (hi_ << (64 - pos_));
        pos_ += n;
        return uint32_t(v & ((uint64_t(1) << n) - 1));
    }
    int position() const { return pos_; }
    void seek(int pos) { pos_ = pos; }

private:
    uint64_t lo_, hi_;
    int pos_ = 0;
};

class BitWriter128 {
public:
    // Writes the low n bits of v (n in 0..32).
    void write(uint32_t v, int n) {
        uint64_t x = uint64_t(v) & ((uint64_t(1) << n) - 1);
        if (pos_ >= 64) hi_ |= x << (pos_ - 64);
        else {
            lo_ |= x << pos_;
            if (pos_ + n > 64) hi_ |= x >> (64 - pos_);
        }
        pos_ += n;
    }
    int position() const { return pos_; }
    void store(uint8_t out[16]) const {
        memcpy(out, &lo_, 8);
        memcpy(out + 8, &hi_, 8);
    }

private:
    uint64_t lo_ = 0, hi_ = 0;
    int pos_ = 0;
};

} // namespace af::bc
