// XTF and VTF readers on arbitrary bytes: each gives a texture or an
// af::sdk::Error. Whatever reads has every surface decoded (deswizzled data,
// P8 through its palette, BC through the codec), the info report built, and
// — for small textures — is written again in both containers and read back.
#include "fuzz_host.hpp"

#include "surface_codec.hpp"
#include "texture_info.hpp"
#include "vtf_file.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"

#include <cstddef>
#include <cstdint>

namespace {

// Bounds the work one input may cause: decoding is linear in the texture,
// writing resamples and encodes, so only small textures are written.
constexpr uint64_t kDecodeBudget = 4u << 20;
constexpr uint64_t kWriteBudget = 64u << 10;

void decode_all(const af_host* host, const af::Texture& t) {
    if (af::texture_bytes(t.desc) > kDecodeBudget) return;
    for (uint32_t l = 0; l < t.desc.layers; ++l)
        for (uint32_t f = 0; f < t.desc.faces; ++f)
            for (uint32_t m = 0; m < t.desc.mips; ++m) try {
                    (void)af::xtf::decode_surface(host, t, l, f, m);
                } catch (const af::sdk::Error&) {
                    // a format the codec refuses is an honest error, not a crash
                }
}

bool small(const af::Texture& t) {
    return t.desc.width && af::texture_bytes(t.desc) <= kWriteBudget && t.desc.layers * t.desc.faces <= 8;
}

template <class Fn> void quietly(Fn&& fn) {
    try {
        fn();
    } catch (const af::sdk::Error&) {
    }
}

void fuzz_xtf(const af_host* host, const uint8_t* data, size_t size, uint8_t knob) {
    quietly([&] { (void)af::xtf::describe_xtf(data, size); });
    af::xtf::XtfFile file;
    try {
        file = af::xtf::read_xtf(data, size, host);
    } catch (const af::sdk::Error&) {
        return;
    }
    decode_all(host, file.image);
    if (file.fallback.desc.width) decode_all(host, file.fallback);
    if (small(file.image)) {
        quietly([&] {
            af::xtf::VtfWriteOptions opt;
            opt.thumbnail = "off";
            opt.filter = AF_FILTER_BOX;
            auto vtf = af::xtf::xtf_to_vtf(host, file, opt);
            (void)af::xtf::read_vtf(vtf.data(), vtf.size(), host);
        });
        quietly([&] {
            af::xtf::XtfWriteOptions opt;
            opt.resampling.filter = AF_FILTER_BOX;
            opt.dither = knob & 2;
            auto again = af::xtf::write_xtf(host, af::xtf::xtf_output_texture(std::move(file), knob & 4, false), opt);
            (void)af::xtf::read_xtf(again.data(), again.size(), host);
        });
    }
}

void fuzz_vtf(const af_host* host, const uint8_t* data, size_t size) {
    quietly([&] { (void)af::xtf::describe_vtf(data, size); });
    af::xtf::VtfFile file;
    try {
        file = af::xtf::read_vtf(data, size, host);
    } catch (const af::sdk::Error&) {
        return;
    }
    decode_all(host, file.image);
    if (small(file.image)) {
        quietly([&] {
            af::xtf::XtfWriteOptions opt;
            opt.resampling.filter = AF_FILTER_BOX;
            auto xtf = af::xtf::vtf_to_xtf(host, file, opt);
            (void)af::xtf::read_xtf(xtf.data(), xtf.size(), host);
        });
        quietly([&] {
            af::xtf::VtfWriteOptions opt;
            opt.thumbnail = "off";
            opt.filter = AF_FILTER_BOX;
            auto again = af::xtf::write_vtf(host, file.image, opt);
            (void)af::xtf::read_vtf(again.data(), again.size(), host);
        });
    }
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const af_host* host = fuzzhost::host();
    const uint8_t knob = size ? data[size - 1] : 0;
    // Both readers see every input: each must refuse the other's files cleanly.
    fuzz_xtf(host, data, size, knob);
    fuzz_vtf(host, data, size);
    return 0;
}
