// OpenEXR reader path: arbitrary bytes must give a texture or an af::sdk::Error (OpenEXR's own exceptions are
// caught inside), with the header's sizes capped before anything is allocated.
#include "assetforge/error.hpp"
#include "core/exr_io.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    // A budget like the host's default kind: sides to 1024, 16 MB of decoded texels.
    const af::ExrLimits limits{1024, 16u << 20};
    try {
        af::Texture t = af::decode_exr({data, size}, "fuzz", limits);
        // Whatever decodes must encode again.
        if (size_t(t.desc.width) * t.desc.height <= 1u << 14) (void)af::encode_exr(t);
    } catch (const af::sdk::Error&) {
    }
    return 0;
}
