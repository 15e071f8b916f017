#include "tga_writer.hpp"

#include "tga_format.hpp"

#include <assetforge/bytes.hpp>
#include <assetforge/error.hpp>
#include <assetforge/pixels.hpp>
#include <assetforge/plugin.hpp>
#include <assetforge/texture.hpp>

#include <cstring>

namespace tga {

namespace {

void put_bgra(const uint8_t* rgba, af::sdk::ByteWriter& w) {
    const uint8_t v[4] = {rgba[2], rgba[1], rgba[0], rgba[3]};
    w.append(v, 4);
}

// One row as packets: a run of 2 or more equal texels is one repeated value; the rest go out raw. Packets never
// cross a row, as TGA 2.0 asks of writers.
void rle_row(const uint8_t* row, uint32_t width, af::sdk::ByteWriter& w) {
    auto same = [&](uint32_t a, uint32_t b) { return std::memcmp(row + a * 4, row + b * 4, 4) == 0; };
    for (uint32_t x = 0; x < width;) {
        uint32_t run = 1;
        while (x + run < width && run < 128 && same(x, x + run)) ++run;
        if (run >= 2) {
            w.u8(uint8_t(0x80 | (run - 1)));
            put_bgra(row + x * 4, w);
            x += run;
            continue;
        }
        uint32_t raw = 1; // up to the next pair of equal texels
        while (x + raw < width && raw < 128 && !(x + raw + 1 < width && same(x + raw, x + raw + 1))) ++raw;
        w.u8(uint8_t(raw - 1));
        for (uint32_t k = 0; k < raw; ++k) put_bgra(row + (x + k) * 4, w);
        x += raw;
    }
}

} // namespace

std::vector<uint8_t> encode_bgra32(const uint8_t* rgba, uint32_t width, uint32_t height, bool rle) {
    if (width == 0 || height == 0 || width > 0xffff || height > 0xffff)
        af::sdk::unsupported(af::sdk::format("a %ux%u TGA (1 to 65535 texels a side)", width, height));
    af::sdk::ByteWriter w;
    const uint8_t header[kHeaderBytes] = {0,
                                          0,
                                          uint8_t(rle ? kTrueColourRle : kTrueColour),
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          0,
                                          uint8_t(width),
                                          uint8_t(width >> 8),
                                          uint8_t(height),
                                          uint8_t(height >> 8),
                                          32,
                                          8 /* 8 alpha bits, bottom-left origin */};
    w.append(header, sizeof header);
    for (uint32_t y = height; y-- > 0;) {
        const uint8_t* row = rgba + uint64_t(y) * width * 4;
        if (rle) {
            rle_row(row, width, w);
        } else {
            for (uint32_t x = 0; x < width; ++x) put_bgra(row + x * 4, w);
        }
    }
    // TGA 2.0 footer: no extension area, no developer area.
    w.u32(0);
    w.u32(0);
    w.append(kFooterSignature, sizeof kFooterSignature);
    return std::move(w).bytes();
}

const af::sdk::ParamTable& write_options() {
    static const af::sdk::ParamTable t{
        af::sdk::boolean("rle", "run-length encode the pixels (smaller for flat areas; every TGA reader takes it)")
            .def("false"),
    };
    return t;
}

af_status write(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        const bool rle = af::sdk::Options(options, write_options()).flag("rle");
        // Read in place (no copy of the other levels). Any format as 8-bit RGBA: the host converts (through codec
        // plugins for compressed data). Only the top level of the first surface is written: TGA holds one image.
        const af_surface s = af::sdk::view_texture(*tex).surface(0, 0, 0);
        af::Texture px = af::sdk::get_rgba8(host, s);
        const std::vector<uint8_t> bytes = encode_bgra32(px.data.data(), s.width, s.height, rle);
        if (out->write(out->ctx, bytes.data(), bytes.size()) != AF_OK)
            af::sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "write failed");
    });
}

} // namespace tga
