// Every format in the table decodes arbitrary bytes without faults; decode→encode→decode is stable in size.
#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"

#include <cstdint>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size < 4) return 0;
    auto formats = af::all_formats();
    const af::FormatInfo& f = formats[data[0] % formats.size()];
    uint32_t w = 1 + data[1] % 17, h = 1 + data[2] % 9;
    std::vector<uint8_t> palette(1024, 0x7f);
    try {
        std::vector<float> px(size_t(w) * h * 4);
        af::decode_texels(f.id, data + 3, size - 3, w, h, px.data(), palette.data());
        std::vector<uint8_t> out(af::surface_bytes(f.id, w, h));
        af::encode_texels(f.id, px.data(), w, h, out.data(), out.size());
    } catch (const af::sdk::Error&) {
    }
    return 0;
}
