#include "plane_header.hpp"

#include "assetforge/plugin.hpp"

namespace af::vtpages {

using sdk::format;
using sdk::invalid;

namespace {

enum ColourFormat { kYOnly = 0, kYuv420 = 1, kYuv422 = 2, kYuv444 = 3, kYuvK = 4, kNComponent = 6 };
enum Bands { kAll = 0, kNoFlexbits = 1, kNoHighpass = 2, kDcOnly = 3 };

class BitReader {
  public:
    explicit BitReader(std::span<const uint8_t> b) : b_(b) {}
    uint32_t get(int n) {
        uint32_t v = 0;
        for (int i = 0; i < n; ++i) {
            const size_t byte = pos_ >> 3;
            if (byte >= b_.size())
                invalid(byte, format("plane header runs past the end of a %zu-byte block", b_.size()));
            v = v << 1 | ((b_[byte] >> (7 - (pos_ & 7))) & 1u);
            ++pos_;
        }
        return v;
    }
    size_t aligned_bytes() const { return (pos_ + 7) >> 3; }
    size_t byte() const { return pos_ >> 3; }

  private:
    std::span<const uint8_t> b_;
    size_t pos_ = 0;
};

// DC_QP / LP_QP / HP_QP with one QP set (LP/HP uniform planes carry exactly one).
void read_quant(BitReader& r, int components, QuantSet& q) {
    q.present = true;
    if (components == 1) {
        q.qp.push_back(uint8_t(r.get(8)));
        return;
    }
    q.component_mode = int(r.get(2));
    switch (q.component_mode) {
    case 0:
        q.qp.push_back(uint8_t(r.get(8)));
        break;
    case 1:
        q.qp.push_back(uint8_t(r.get(8)));
        q.qp.push_back(uint8_t(r.get(8)));
        break;
    case 2:
        for (int i = 0; i < components; ++i) q.qp.push_back(uint8_t(r.get(8)));
        break;
    default:
        invalid(r.byte(), "plane header: reserved COMPONENT_MODE 3");
    }
}

std::string qp_text(const QuantSet& q) {
    if (!q.present) return "per tile";
    std::string s;
    for (size_t i = 0; i < q.qp.size(); ++i) {
        if (i) s.push_back('/');
        s.append(std::to_string(q.qp[i]));
    }
    return s;
}

} // namespace

std::string_view PlaneHeader::colour_format_name() const {
    static constexpr std::string_view names[] = {"YONLY", "YUV420",    "YUV422",     "YUV444",
                                                 "YUVK",  "reserved5", "NCOMPONENT", "reserved7"};
    return names[colour_format & 7];
}

std::string_view PlaneHeader::bands_name() const {
    static constexpr std::string_view names[] = {"ALL", "NOFLEXBITS", "NOHIGHPASS", "DCONLY"};
    return bands < 4 ? names[bands] : "reserved";
}

std::string PlaneHeader::describe() const {
    std::string s =
        format("%s %s, %d component%s, DC QP %s", std::string(colour_format_name()).c_str(),
               std::string(bands_name()).c_str(), components, components == 1 ? "" : "s", qp_text(dc).c_str());
    if (bands != kDcOnly) s.append(", LP ").append(qp_text(lp));
    if (bands != kDcOnly && bands != kNoHighpass) s.append(", HP ").append(qp_text(hp));
    return s;
}

PlaneHeader parse_plane_header(std::span<const uint8_t> block) {
    BitReader r(block);
    PlaneHeader h;
    h.colour_format = int(r.get(3));
    h.no_scaled = r.get(1);
    h.bands = int(r.get(4));
    if (h.bands > kDcOnly) invalid(0, format("plane header: reserved BANDS_PRESENT %d", h.bands));
    switch (h.colour_format) {
    case kYOnly:
        h.components = 1;
        break;
    case kYuv420:
    case kYuv422:
    case kYuv444:
        h.components = 3;
        h.reserved_bits = r.get(8); // chroma centering (420/422) or reserved (444)
        break;
    case kYuvK:
        h.components = 4;
        break;
    case kNComponent: {
        uint32_t n = r.get(4);
        if (n == 0xF) n = r.get(12) + 15;
        h.components = int(n + 1);
        // Four more bits sit here in every known block (value 0); their meaning is not established.
        h.reserved_bits = r.get(4);
        break;
    }
    default:
        invalid(0, format("plane header: reserved colour format %d", h.colour_format));
    }
    if (r.get(1)) read_quant(r, h.components, h.dc);
    if (h.bands != kDcOnly) {
        r.get(1); // RESERVED_I_BIT
        if (r.get(1)) read_quant(r, h.components, h.lp);
        if (h.bands != kNoHighpass) {
            r.get(1); // RESERVED_J_BIT
            if (r.get(1)) read_quant(r, h.components, h.hp);
        }
    }
    h.header_bytes = r.aligned_bytes();
    if (h.header_bytes < block.size()) h.next_byte = block[h.header_bytes];
    const size_t sc = h.header_bytes + 1;
    h.tile_start_code =
        block.size() >= sc + 4 && block[sc] == 0 && block[sc + 1] == 0 && block[sc + 2] == 1 && block[sc + 3] == 0;
    return h;
}

} // namespace af::vtpages
