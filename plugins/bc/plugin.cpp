// The "bc" plugin: one codec for DXGI BC1–BC5 (70–84) and BC6H/BC7 (94–99).
//
// decode writes R8G8B8A8_UNORM(_SRGB), R16G16B16A16_FLOAT or R32G32B32A32_FLOAT
// as the caller's dst->format says. 8-bit output of SNORM data (BC4/BC5 SNORM)
// is offset binary, value + 128 (-1 → 1, 0 → 128, +1 → 255); BC6H to 8 bits is
// linear light clamped to [0, 1]. Use a float output for exact SNORM/BC6H values.
// BC4 decodes to (R, 0, 0, 1), BC5 to (R, G, 0, 1), as Direct3D samples them.
#include "assetforge/plugin.hpp"
#include "assetforge/descriptors.hpp"
#include "bc_surface.hpp"

namespace {

const uint32_t kFormats[] = {70, 71, 72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 94, 95, 96, 97, 98, 99};

// What parse_options() (bc_surface.cpp) reads.
const af::sdk::ParamTable& encode_options() {
    namespace sdk = af::sdk;
    static const sdk::ParamTable t{
        sdk::one_of("quality", {"fast", "normal", "high", "max"}, "encoder effort: levels 0, 3, 6, 10").def("normal"),
        sdk::integer("level", 0, 10, "encoder effort 0-10; overrides quality"),
        sdk::one_of("weights", {"uniform", "perceptual"}, "colour error weights (perceptual: Rec.709 luma)")
            .def("uniform"),
        sdk::boolean("srgb", "weigh colour error by the sRGB-to-linear slope of each block").def("false"),
        sdk::boolean("bc1_3color", "BC1 may use its 3-colour palette for opaque blocks").def("true"),
        sdk::boolean("bc1_punchthrough", "BC1 texels with alpha below alpha_threshold become transparent black")
            .def("true"),
        sdk::integer("alpha_threshold", 0, 255, "see bc1_punchthrough").def("128"),
        sdk::boolean("normal_map", "BC5: renormalise (x, y, z) before storing x, y").def("false"),
    };
    return t;
}

af_codec make_codec() {
    static const af::sdk::ParamTable no_decode_options;
    return af::sdk::make_codec({
        .name = "bc",
        .description = "BC1-BC7 block compression (decode and encode)",
        .version = 1,
        .formats = kFormats,
        .decode = af::bc::decode_codec,
        .encode = af::bc::encode_codec,
        .decode_options = &no_decode_options,
        .encode_options = &encode_options(),
    });
}

const af_plugin* plugin_table(const af_host*) {
    static const af_codec codec = make_codec();
    static const af_codec* const codecs[] = {&codec};
    static const af_plugin plugin =
        af::sdk::make_plugin("bc", "0.1.0", "Block-compression codecs (BC1-BC7)", {.codecs = codecs});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(plugin_table)
