// PNG reader path: arbitrary bytes must give a picture or an af::sdk::Error.
#include "assetforge/plugin.hpp"
#include "core/png_io.hpp"

#include <cstdint>
#include <cstddef>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        af::Texture img = af::decode_png({data, size}, "fuzz");
        // Whatever decodes must encode again.
        if (af::texels(img) <= 1u << 16) (void)af::encode_png(img);
    } catch (const af::sdk::Error&) {
    }
    return 0;
}
