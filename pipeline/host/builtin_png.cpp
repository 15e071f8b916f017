#include "host/builtin_png.hpp"

#include "assetforge/plugin.hpp"
#include "core/pixel_convert.hpp"
#include "core/png_io.hpp"
#include "host/host_services.hpp"

#include <nlohmann/json.hpp>

#include <cstring>

namespace af::host {
namespace {

// Chosen from the size/speed curve on a real DDS tree (docs/png-output.md):
// level 1 writes PNGs 3.5 % larger than Pillow's (zlib 6) over 24 real DDS
// textures, eight times as fast; 6 is 2 % smaller and 4 times as fast.
constexpr int kDefaultPngLevel = 1;

constexpr uint8_t kSignature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};

int32_t png_probe(const uint8_t* head, uint64_t size, const char* path) {
    if (size >= 8 && std::memcmp(head, kSignature, 8) == 0) return AF_PROBE_MAGIC;
    std::string_view p(path ? path : "");
    if (p.size() >= 4) {
        std::string ext(p.substr(p.size() - 4));
        for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (ext == ".png") return AF_PROBE_EXTENSION;
    }
    return AF_PROBE_NO;
}

// 8-bit PNGs become R8G8B8A8 (sRGB-tagged unless the file says linear);
// 16-bit PNGs become R16G16B16A16_UNORM so no precision is lost.
Texture png_to_texture(Texture&& img) {
    const bool srgb = is_srgb(img.desc);
    TextureDesc d;
    d.width = img.desc.width;
    d.height = img.desc.height;
    if (is_float(img)) {
        d.format = FMT_R16G16B16A16_UNORM;
        Texture t(d);
        encode_texels(d.format, floats(img).data(), d.width, d.height, t.data.data(), t.data.size());
        if (srgb) t.desc.flags |= AF_TEX_SRGB;
        return t;
    }
    d.format = srgb ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM;
    if (srgb) d.flags |= AF_TEX_SRGB;
    Texture t;
    t.desc = d;
    t.data = std::move(img.data);
    return t;
}

// Refuses oversize images from the header alone, before libpng allocates rows.
void check_header_limits(const af_host* h, const af_input* in) {
    sdk::ByteReader r(in->data, in->size);
    if (in->size < 24) return; // decode_png reports the truncation
    uint32_t w = uint32_t(r.u8(16)) << 24 | uint32_t(r.u8(17)) << 16 | uint32_t(r.u8(18)) << 8 | r.u8(19);
    uint32_t ht = uint32_t(r.u8(20)) << 24 | uint32_t(r.u8(21)) << 16 | uint32_t(r.u8(22)) << 8 | r.u8(23);
    if (h->max_dimension && (w > h->max_dimension || ht > h->max_dimension))
        sdk::fail(AF_ERR_NO_MEMORY, 16,
                  sdk::format("limit: %ux%u exceeds --max-dimension %u", w, ht, h->max_dimension));
    if (h->max_texture_bytes && uint64_t(w) * ht * 8 > h->max_texture_bytes)
        sdk::fail(AF_ERR_NO_MEMORY, 16, sdk::format("limit: %ux%u exceeds --max-texture-bytes", w, ht));
}

af_status png_read(const af_host* h, const af_input* in, const af_options*, af_texture* out, af_error* err) {
    return sdk::guard(err, [&] {
        check_header_limits(h, in);
        sdk::export_texture(h, png_to_texture(decode_png({in->data, in->size}, "PNG")), out);
    });
}

af_status png_write(const af_host*, const af_texture* tex, const af_options* options, af_sink* sink, af_error* err) {
    return sdk::guard(err, [&] {
        sdk::Options o(options);
        Texture t = sdk::import_texture(*tex);
        uint32_t mip = uint32_t(o.integer("mip", 0, 0, t.desc.mips - 1));
        uint32_t layer = uint32_t(o.integer("layer", 0, 0, t.desc.layers - 1));
        uint32_t face = uint32_t(o.integer("face", 0, 0, t.desc.faces - 1));
        const FormatInfo* f = format_info(t.desc.format);
        if (!f) sdk::unsupported("format id " + std::to_string(t.desc.format));
        ImageView s = t.surface(layer, face, mip);
        if (s.depth > 1) sdk::unsupported("writing a volume texture as PNG (choose a slice with a convert step)");
        Texture img;
        if (f->compressed()) {
            // Decoding goes through the codec via the host; float output keeps BC6H/SNORM exact.
            bool wide = f->decodes_to_float();
            img = wide ? rgba32f_picture(s.width, s.height, f->srgb()) : rgba8_picture(s.width, s.height, f->srgb());
            af_surface src{t.desc.format, s.width, s.height, 1, s.data, s.size};
            af_surface dst{wide ? uint32_t(FMT_R32G32B32A32_FLOAT)
                                : uint32_t(f->srgb() ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM),
                           s.width,
                           s.height,
                           1,
                           wide ? reinterpret_cast<uint8_t*>(floats(img).data()) : img.data.data(),
                           wide ? floats(img).size() * 4 : img.data.size()};
            convert_surface(src, dst, options);
        } else {
            img = surface_to_image(t.desc.format, s.data, s.size, s.width, s.height,
                                   t.palette.empty() ? nullptr : t.palette.data() + size_t(layer) * 1024);
        }
        set_srgb(img, f->srgb() || (t.desc.flags & AF_TEX_SRGB));
        PngWriteOptions po;
        po.bit_depth = is_float(img) ? 16 : 8;
        const std::string channels = o.choice("channels", "rgba", {"rgba", "rgb", "grey", "grey_alpha"});
        po.grey = channels == "grey" || channels == "grey_alpha";
        po.drop_alpha = channels == "rgb" || channels == "grey";
        if (auto b = o.get("bit_depth")) po.bit_depth = int(o.integer("bit_depth", 8, 1, 16));
        if (po.bit_depth != 1 && po.bit_depth != 8 && po.bit_depth != 16) sdk::usage("bit_depth must be 1, 8 or 16");
        if (po.bit_depth == 1 && channels != "grey") sdk::usage("bit_depth 1 needs channels grey");
        // One colour rule for every route (texture.hpp): sRGB data gets the
        // sRGB chunk, data known to be linear gAMA 1.0, the rest no chunk.
        po.tag_linear = o.flag("linear", false) || known_linear(t.desc);
        po.compression = int(o.integer("level", kDefaultPngLevel, 0, 12));
        po.filter = parse_png_filter(o.choice("filter", "auto", {"auto", "none", "sub", "up", "paeth"}));
        auto bytes = encode_png(img, po);
        af_status st = sink->write(sink->ctx, bytes.data(), bytes.size());
        if (st != AF_OK) sdk::fail(st, AF_NO_OFFSET, "cannot write PNG output");
    });
}

af_status png_info(const af_host* h, const af_input* in, const af_options*, af_info_text* out, af_error* err) {
    return sdk::guard(err, [&] {
        sdk::ByteReader r(in->data, in->size);
        if (in->size < 33 || std::memcmp(in->data, kSignature, 8) != 0) sdk::invalid(0, "not a PNG file");
        uint32_t w = uint32_t(r.u8(16)) << 24 | uint32_t(r.u8(17)) << 16 | uint32_t(r.u8(18)) << 8 | r.u8(19);
        uint32_t ht = uint32_t(r.u8(20)) << 24 | uint32_t(r.u8(21)) << 16 | uint32_t(r.u8(22)) << 8 | r.u8(23);
        int depth = r.u8(24), ctype = r.u8(25);
        static const char* types[] = {"grey", "?", "rgb", "palette", "grey+alpha", "?", "rgba"};
        check_header_limits(h, in);
        const Texture img = decode_png({in->data, in->size}, "PNG"); // validates every chunk
        const bool srgb = is_srgb(img.desc);
        nlohmann::json j = {{"container", "png"},
                            {"width", w},
                            {"height", ht},
                            {"bit_depth", depth},
                            {"color_type", ctype < 7 ? types[ctype] : "?"},
                            {"srgb", srgb}};
        std::string text = "format: PNG " + std::to_string(depth) + "-bit " + (ctype < 7 ? types[ctype] : "?") +
                           (srgb ? " (sRGB)" : " (linear)") + "\ndimensions: " + std::to_string(w) + "x" +
                           std::to_string(ht) + "\n";
        out->json = sdk::host_strdup(h, j.dump());
        out->text = sdk::host_strdup(h, text);
    });
}

const sdk::ParamTable& png_write_options() {
    static const sdk::ParamTable t{
        sdk::integer("mip", 0, 31, "which mip level to write").def("0"),
        sdk::integer("layer", 0, UINT32_MAX, "which layer (array element) to write").def("0"),
        sdk::integer("face", 0, 5, "which cube face to write").def("0"),
        sdk::one_of("bit_depth", {"1", "8", "16"},
                    "bits per channel (default: 16 for float data, else 8; 1: grey masks)"),
        sdk::one_of("channels", {"rgba", "rgb", "grey", "grey_alpha"}, "channels stored (grey: from red)").def("rgba"),
        sdk::boolean("linear", "tag the file as linear (gAMA 1.0) instead of sRGB").def("false"),
        sdk::integer("level", 0, 12, "deflate level: 0 stored, 1 fastest … 12 smallest")
            .def(std::to_string(kDefaultPngLevel)),
        sdk::one_of("filter", {"auto", "none", "sub", "up", "paeth"},
                    "row filter (auto: per row, the smallest sum of absolute differences)")
            .def("auto"),
    };
    return t;
}

} // namespace

Texture read_png_texture(const af_host* host, const af_input& in) {
    check_header_limits(host, &in);
    return png_to_texture(decode_png({in.data, in.size}, "PNG"));
}

af_container builtin_png_container() {
    static const sdk::ParamTable no_read_options;
    af_container c{};
    sdk::init_header(c);
    c.name = "png";
    c.extensions = ".png";
    c.description = "Portable Network Graphics (libpng)";
    c.version = 1;
    c.caps = AF_CAN_READ | AF_CAN_WRITE | AF_CAN_INFO | AF_IMAGE_FILES;
    c.probe = png_probe;
    c.read = png_read;
    c.write = png_write;
    c.info = png_info;
    sdk::declare_read_options(c, no_read_options);
    sdk::declare_write_options(c, png_write_options());
    c.meta_keys = sdk::kNoMetaKeys;
    return c;
}

} // namespace af::host
