// "Raw RGBA": the smallest useful container, as a template for plugin authors.
//
// File layout (little-endian):
//   0  char[4] magic "AFRW"
//   4  u32     width
//   8  u32     height
//   12 u32     format: 28 (R8G8B8A8_UNORM) or 29 (R8G8B8A8_UNORM_SRGB)
//   16 width*height*4 bytes of texels, rows top to bottom
//
// It uses only the installed SDK headers: the C ABI plus the header-only C++ layer.
#include <assetforge/descriptors.hpp>
#include <assetforge/pixels.hpp>
#include <assetforge/plugin.hpp>

#include <cstring>
#include <string>

namespace {

constexpr char kMagic[4] = {'A', 'F', 'R', 'W'};

int32_t probe(const uint8_t* head, uint64_t size, const char* path) {
    if (size >= 4 && std::memcmp(head, kMagic, 4) == 0) return AF_PROBE_MAGIC;
    std::string p(path ? path : "");
    return p.size() > 4 && p.compare(p.size() - 4, 4, ".afr") == 0 ? AF_PROBE_EXTENSION : AF_PROBE_NO;
}

struct Header {
    uint32_t width, height, format;
};

Header parse(const af_host* host, const af_input* in) {
    af::sdk::ByteReader r(in->data, in->size);
    r.need(0, 16, "header");
    if (std::memcmp(in->data, kMagic, 4) != 0) af::sdk::invalid(0, "bad magic: expected \"AFRW\"");
    Header h{r.u32(4), r.u32(8), r.u32(12)};
    if (h.width == 0 || h.height == 0) af::sdk::invalid(4, "zero width or height");
    if (host->max_dimension && (h.width > host->max_dimension || h.height > host->max_dimension))
        af::sdk::invalid(
            4, af::sdk::format("%ux%u exceeds the dimension limit %u", h.width, h.height, host->max_dimension));
    if (h.format != af::FMT_R8G8B8A8_UNORM && h.format != af::FMT_R8G8B8A8_UNORM_SRGB)
        af::sdk::invalid(12, af::sdk::format("format %u: only 28 and 29 are defined", h.format));
    const uint64_t need = uint64_t(h.width) * h.height * 4;
    if (in->size - 16 < need)
        af::sdk::invalid(in->size, af::sdk::format("truncated: %llu texel bytes expected, %llu present",
                                                   (unsigned long long)need, (unsigned long long)(in->size - 16)));
    if (in->size - 16 > need && in->warn) in->warn(in->diag_ctx, 16 + need, "trailing bytes after the texels");
    return h;
}

af_status read(const af_host* host, const af_input* in, const af_options*, af_texture* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        Header h = parse(host, in);
        af::Texture t(af::TextureDesc{h.format, h.width, h.height});
        std::memcpy(t.data.data(), in->data + 16, t.data.size());
        if (h.format == af::FMT_R8G8B8A8_UNORM_SRGB) t.desc.flags |= AF_TEX_SRGB;
        af::sdk::export_texture(host, t, out);
    });
}

af_status write(const af_host* host, const af_texture* tex, const af_options*, af_sink* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        af::Texture t = af::sdk::import_texture(*tex);
        const bool srgb = (t.desc.flags & AF_TEX_SRGB) || t.desc.format == af::FMT_R8G8B8A8_UNORM_SRGB;
        const uint32_t fmt = srgb ? af::FMT_R8G8B8A8_UNORM_SRGB : af::FMT_R8G8B8A8_UNORM;
        af::ImageView s = t.surface(0, 0, 0);
        // Any input format as RGBA8: the host converts (it routes compressed data through codec plugins).
        af::Texture px = af::sdk::get_rgba8(host, {t.desc.format, s.width, s.height, 1, s.data, s.size});
        af::sdk::ByteWriter header;
        header.append(kMagic, 4);
        header.u32(s.width);
        header.u32(s.height);
        header.u32(fmt);
        if (out->write(out->ctx, header.data(), header.size()) != AF_OK ||
            out->write(out->ctx, px.data.data(), px.data.size()) != AF_OK)
            af::sdk::fail(AF_ERR_IO, AF_NO_OFFSET, "write failed");
    });
}

af_status info(const af_host* host, const af_input* in, const af_options*, af_info_text* out, af_error* err) {
    return af::sdk::guard(err, [&] {
        Header h = parse(host, in);
        out->json = af::sdk::host_strdup(
            host, af::sdk::format("{\"container\":\"rawrgba\",\"width\":%u,\"height\":%u,\"format_id\":%u}", h.width,
                                  h.height, h.format));
        out->text = af::sdk::host_strdup(
            host, af::sdk::format("container: rawrgba\ndimensions: %ux%u\nformat: %s\n", h.width, h.height,
                                  h.format == 29 ? "R8G8B8A8_UNORM_SRGB" : "R8G8B8A8_UNORM"));
    });
}

const af_plugin* describe(const af_host*) {
    // It takes no options and sets no metadata. Declaring so (plugin API 1.2) lets the host refuse a
    // misspelt option in a pipeline when it loads; a container that declares nothing accepts any.
    static const af::sdk::ParamTable no_options;
    static const af_container container = af::sdk::make_container({
        .name = "rawrgba",
        .extensions = ".afr",
        .description = "raw RGBA8 with a 16-byte header (SDK example)",
        .version = 1,
        .probe = probe,
        .read = read,
        .write = write,
        .info = info,
        .read_options = &no_options,
        .write_options = &no_options,
        .meta_keys = af::sdk::kNoMetaKeys,
    });
    static const af_container* const containers[] = {&container};
    static const af_plugin plugin =
        af::sdk::make_plugin("rawrgba", "1.0.0", "example third-party plugin", {.containers = containers});
    return &plugin;
}

} // namespace

AF_DEFINE_PLUGIN(describe)
