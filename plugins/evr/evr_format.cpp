#include "evr_format.hpp"

#include <algorithm>
#include <cstdio>

namespace af::evr {

const char* type_name(uint64_t type) {
    switch (type) {
    case kTypeDds:
        return "texture_dds";
    case kTypeRawBc:
        return "texture_bc_raw";
    case kTypeTextureMeta:
        return "texture_meta";
    case kTypeAudioRef:
        return "audio_ref";
    case kTypeAssetRef:
        return "asset_ref";
    default:
        return "";
    }
}

std::string hex16(uint64_t symbol) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(symbol));
    return buf;
}

bool parse_symbol(const std::string& text, uint64_t& out) {
    size_t i = (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) ? 2 : 0;
    if (text.size() == i || text.size() - i > 16) return false;
    uint64_t v = 0;
    for (; i < text.size(); ++i) {
        char c = text[i];
        int d = c >= '0' && c <= '9'   ? c - '0'
                : c >= 'a' && c <= 'f' ? c - 'a' + 10
                : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                       : -1;
        if (d < 0) return false;
        v = v << 4 | uint64_t(d);
    }
    out = v;
    return true;
}

std::string parse_symbol_list(const std::string& text, std::set<uint64_t>& out) {
    size_t start = 0;
    while (start <= text.size()) {
        size_t end = text.find(',', start);
        if (end == std::string::npos) end = text.size();
        std::string one = text.substr(start, end - start);
        one.erase(0, one.find_first_not_of(" \t"));
        one.erase(one.find_last_not_of(" \t") + 1);
        uint64_t sym = 0;
        if (!parse_symbol(one, sym)) return one.empty() ? "(empty)" : one;
        out.insert(sym);
        start = end + 1;
    }
    return {};
}

uint64_t frame_capacity(const Limits& limits) { return std::min(limits.max_frame_bytes, kField32Max); }

std::string over_frame_capacity(uint64_t bytes, const Limits& limits) {
    using ull = unsigned long long;
    if (limits.max_frame_bytes < kField32Max)
        return sdk::format("%llu bytes, more than one Echo VR frame may hold (%llu bytes: the readers' frame limit, "
                           "--max-frame-bytes)",
                           (ull)bytes, (ull)limits.max_frame_bytes);
    return sdk::format("%llu bytes, more than the 32-bit length field of an Echo VR frame holds (%llu)", (ull)bytes,
                       (ull)kField32Max);
}

} // namespace af::evr
