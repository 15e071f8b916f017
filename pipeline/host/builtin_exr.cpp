#include "host/builtin_exr.hpp"

#include "assetforge/picture.hpp"
#include "assetforge/plugin.hpp"
#include "core/exr_io.hpp"
#include "core/pixel_convert.hpp"
#include "host/host_services.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstring>

namespace af::host {
namespace {

int32_t exr_probe(const uint8_t* head, uint64_t size, const char* path) {
    if (is_exr({head, size_t(std::min<uint64_t>(size, 4))})) return AF_PROBE_MAGIC;
    std::string_view p(path ? path : "");
    if (p.size() >= 4) {
        std::string ext(p.substr(p.size() - 4));
        for (auto& c : ext) c = char(std::tolower(static_cast<unsigned char>(c)));
        if (ext == ".exr") return AF_PROBE_EXTENSION;
    }
    return AF_PROBE_NO;
}

ExrLimits limits_of(const af_host* h) { return {h->max_dimension, h->max_texture_bytes}; }

af_status exr_read(const af_host* h, const af_input* in, const af_options*, af_texture* out, af_error* err) {
    return sdk::guard(err, [&] {
        // The file's name is added by the host (read_texture_bytes), as for every container.
        sdk::export_texture(h, decode_exr({in->data, size_t(in->size)}, "", limits_of(h)), out);
    });
}

// What a read will return, from the header alone: the engine's memory estimate asks before it reads a file.
af_status exr_dims(const af_host* h, const af_input* in, const af_options*, af_dims* out, af_error* err) {
    return sdk::guard(err, [&] {
        const ExrHeader head = read_exr_header({in->data, size_t(in->size)}, "", limits_of(h));
        const bool lone_r = head.channels == "R";
        out->format = lone_r ? (head.all_half ? FMT_R16_FLOAT : FMT_R32_FLOAT)
                             : (head.all_half ? FMT_R16G16B16A16_FLOAT : FMT_R32G32B32A32_FLOAT);
        out->width = head.width, out->height = head.height, out->depth = 1;
        out->layer_count = out->face_count = out->mip_count = 1;
    });
}

bool exr_ready(uint32_t format) {
    return format == FMT_R16G16B16A16_FLOAT || format == FMT_R32G32B32A32_FLOAT || format == FMT_R16_FLOAT ||
           format == FMT_R32_FLOAT;
}

// One surface as EXR takes it: half or float formats as they are (half data
// stays bit-exact), compressed ones decoded to float through their codec
// (BC6H keeps its range and sign), the rest as linear float: EXR holds linear
// values, so sRGB colour is converted.
Texture exr_surface(const Texture& t, const ImageView& s, uint32_t layer, const af_options* options) {
    const FormatInfo* f = format_info(t.desc.format);
    if (!f) sdk::unsupported("format id " + std::to_string(t.desc.format));
    if (exr_ready(t.desc.format)) {
        TextureDesc d;
        d.format = t.desc.format;
        d.width = s.width, d.height = s.height;
        Texture out(d);
        std::memcpy(out.data.data(), s.data, std::min<size_t>(out.data.size(), s.size));
        return out;
    }
    Texture img;
    if (f->compressed()) {
        img = rgba32f_picture(s.width, s.height, f->srgb());
        af_surface src{t.desc.format, s.width, s.height, 1, s.data, s.size};
        af_surface dst{uint32_t(FMT_R32G32B32A32_FLOAT),
                       s.width,
                       s.height,
                       1,
                       reinterpret_cast<uint8_t*>(floats(img).data()),
                       floats(img).size() * 4};
        convert_surface(src, dst, options);
    } else {
        img = to_float(surface_to_image(t.desc.format, s.data, s.size, s.width, s.height,
                                        t.palette.empty() ? nullptr : t.palette.data() + size_t(layer) * 1024));
    }
    if (f->srgb() || (t.desc.flags & AF_TEX_SRGB)) {
        std::span<float> v = floats(img);
        for (size_t i = 0; i < v.size(); ++i)
            if (i % 4 != 3) v[i] = srgb_to_linear(v[i]);
    }
    img.desc.flags &= ~uint32_t(AF_TEX_SRGB);
    return img;
}

af_status exr_write(const af_host*, const af_texture* tex, const af_options* options, af_sink* sink, af_error* err) {
    return sdk::guard(err, [&] {
        sdk::Options o(options);
        Texture t = sdk::import_texture(*tex);
        uint32_t mip = uint32_t(o.integer("mip", 0, 0, t.desc.mips - 1));
        uint32_t layer = uint32_t(o.integer("layer", 0, 0, t.desc.layers - 1));
        uint32_t face = uint32_t(o.integer("face", 0, 0, t.desc.faces - 1));
        ImageView s = t.surface(layer, face, mip);
        if (s.depth > 1) sdk::unsupported("writing a volume texture as EXR (choose a slice with a convert step)");
        ExrWriteOptions eo;
        const std::string pixel = o.choice("pixel", "auto", {"auto", "half", "float"});
        eo.pixel = pixel == "half" ? ExrPixel::Half : pixel == "float" ? ExrPixel::Float : ExrPixel::Auto;
        const std::string channels = o.choice("channels", "auto", {"auto", "rgba", "rgb"});
        eo.channels = channels == "rgba"  ? ExrWriteOptions::Channels::Rgba
                      : channels == "rgb" ? ExrWriteOptions::Channels::Rgb
                                          : ExrWriteOptions::Channels::Auto;
        eo.compression = o.choice("compression", "zip", {"none", "rle", "zips", "zip", "piz"});
        auto bytes = encode_exr(exr_surface(t, s, layer, options), eo);
        af_status st = sink->write(sink->ctx, bytes.data(), bytes.size());
        if (st != AF_OK) sdk::fail(st, AF_NO_OFFSET, "cannot write EXR output");
    });
}

af_status exr_info(const af_host* h, const af_input* in, const af_options*, af_info_text* out, af_error* err) {
    return sdk::guard(err, [&] {
        const std::span<const uint8_t> bytes{in->data, size_t(in->size)};
        const ExrHeader head = read_exr_header(bytes, "", limits_of(h));
        (void)decode_exr(bytes, "", limits_of(h)); // validates every chunk
        std::string shown = head.channels;         // "R,G,B,A" shows as RGBA; longer (layered) names keep their commas
        if (shown.size() == 2 * size_t(std::count(shown.begin(), shown.end(), ',')) + 1) std::erase(shown, ',');
        const char* pixel = head.all_half ? "half" : "float";
        nlohmann::json j = {{"container", "exr"},        {"width", head.width}, {"height", head.height},
                            {"channels", head.channels}, {"pixel", pixel},      {"compression", head.compression},
                            {"tiled", head.tiled}};
        out->json = sdk::host_strdup(h, j.dump());
        out->text =
            sdk::host_strdup(h, "format: OpenEXR " + shown + " " + pixel + " (linear, " + head.compression +
                                    (head.tiled ? ", tiled" : "") + ")\ndimensions: " + std::to_string(head.width) +
                                    "x" + std::to_string(head.height) + "\n");
    });
}

const sdk::ParamTable& exr_write_options() {
    static const sdk::ParamTable t{
        sdk::integer("mip", 0, 31, "which mip level to write").def("0"),
        sdk::integer("layer", 0, UINT32_MAX, "which layer (array element) to write").def("0"),
        sdk::integer("face", 0, 5, "which cube face to write").def("0"),
        sdk::one_of("pixel", {"auto", "half", "float"},
                    "channel type (auto: half for half data and for float data a half holds exactly, else float)")
            .def("auto"),
        sdk::one_of("channels", {"auto", "rgba", "rgb"}, "channels stored (auto: RGB when alpha is 1 everywhere)")
            .def("auto"),
        sdk::one_of("compression", {"none", "rle", "zips", "zip", "piz"}, "lossless compression").def("zip"),
    };
    return t;
}

} // namespace

af_container builtin_exr_container() {
    static const sdk::ParamTable no_read_options;
    af_container c{};
    sdk::init_header(c);
    c.name = "exr";
    c.extensions = ".exr";
    c.description = "OpenEXR, linear half/float HDR images (libopenexr)";
    c.version = 1;
    c.caps = AF_CAN_READ | AF_CAN_WRITE | AF_CAN_INFO | AF_IMAGE_FILES;
    c.probe = exr_probe;
    c.read = exr_read;
    c.write = exr_write;
    c.info = exr_info;
    c.dims = exr_dims;
    sdk::declare_read_options(c, no_read_options);
    sdk::declare_write_options(c, exr_write_options());
    c.meta_keys = sdk::kNoMetaKeys;
    return c;
}

} // namespace af::host
