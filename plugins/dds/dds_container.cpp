#include "dds_container.hpp"

#include "dds_header.hpp"
#include "dds_info.hpp"
#include "dds_reader.hpp"
#include "dds_writer.hpp"

#include "assetforge/descriptors.hpp"
#include "assetforge/plugin.hpp"

#include <cstring>
#include <string>

namespace af::dds {
namespace {

int32_t probe(const uint8_t* head, uint64_t head_size, const char* path) {
    if (head && head_size >= 4 && head[0] == 'D' && head[1] == 'D' && head[2] == 'S' && head[3] == ' ')
        return AF_PROBE_MAGIC;
    if (path) {
        std::string p(path);
        if (p.size() >= 4) {
            std::string ext = p.substr(p.size() - 4);
            for (auto& c : ext) c = char(tolower(c));
            if (ext == ".dds") return AF_PROBE_EXTENSION;
        }
    }
    return AF_PROBE_NO;
}

af_status read(const af_host* host, const af_input* in, const af_options* options, af_texture* out, af_error* error) {
    return sdk::guard(error, [&] {
        if (!in || !out) sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, "read: missing input or output");
        ReadOptions opt = read_options(options, host);
        ReadPlan plan = plan_read(in->data, in->size, opt);
        std::memset(out, 0, sizeof *out);
        sdk::init_header(*out);
        const TextureDesc& d = plan.desc;
        out->format = d.format;
        out->width = d.width;
        out->height = d.height;
        out->depth = d.depth;
        out->mip_count = d.mips;
        out->layer_count = d.layers;
        out->face_count = d.faces;
        out->flags = d.flags;
        out->alpha_mode = d.alpha_mode;
        out->data = sdk::host_alloc(host, plan.data_size);
        std::memcpy(out->data, in->data + plan.data_offset, plan.data_size);
        out->data_size = plan.data_size;
        // Static strings: the host copies metadata when it adopts the texture.
        static const af_kv kLegacy[] = {{"dds_header", "legacy"}}, kDx10[] = {{"dds_header", "dx10"}};
        out->meta = plan.dx10 ? kDx10 : kLegacy;
        out->meta_count = 1;
        if (in->warn)
            for (const auto& w : plan.warnings) in->warn(in->diag_ctx, w.offset, w.message.c_str());
    });
}

af_status write(const af_host*, const af_texture* tex, const af_options* options, af_sink* out, af_error* error) {
    return sdk::guard(error, [&] {
        if (!tex || !out || !out->write) sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, "write: missing texture or sink");
        TextureDesc d;
        d.format = tex->format;
        d.width = tex->width;
        d.height = tex->height;
        d.depth = tex->depth ? tex->depth : 1;
        d.mips = tex->mip_count ? tex->mip_count : 1;
        d.layers = tex->layer_count ? tex->layer_count : 1;
        d.faces = tex->face_count ? tex->face_count : 1;
        d.flags = tex->flags;
        d.alpha_mode = tex->alpha_mode;
        WriteOptions wo = write_options(options);
        for (uint32_t i = 0; i < tex->meta_count; ++i)
            if (tex->meta[i].key && std::string_view(tex->meta[i].key) == "dds_header")
                wo.original = header_kind(tex->meta[i].value);
        RawHeader h = make_header(d, wo);
        uint64_t need = texture_bytes(d);
        if (tex->data_size != need || (need && !tex->data))
            sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET,
                      sdk::format("texture buffer holds %llu bytes, its description needs %llu",
                                  (unsigned long long)tex->data_size, (unsigned long long)need));
        std::vector<uint8_t> header = serialize_header(h);
        af_status s = out->write(out->ctx, header.data(), header.size());
        if (s == AF_OK && need) s = out->write(out->ctx, tex->data, need);
        if (s != AF_OK) sdk::fail(s, AF_NO_OFFSET, "writing the DDS output failed");
    });
}

af_status info(const af_host* host, const af_input* in, const af_options*, af_info_text* out, af_error* error) {
    return sdk::guard(error, [&] {
        if (!in || !out) sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, "info: missing input or output");
        ReadOptions opt = read_options(nullptr, host);
        InfoReport r = info_report(in->data, in->size, opt.limits);
        out->json = sdk::host_strdup(host, r.json);
        try {
            out->text = sdk::host_strdup(host, r.text);
        } catch (...) {
            host->free(out->json);
            out->json = nullptr;
            throw;
        }
    });
}

// What read_options() and write_options() look at.
const sdk::ParamTable& read_option_table() {
    static const sdk::ParamTable t{
        sdk::boolean("permissive", "read the whole surfaces a truncated file holds").def("false"),
        sdk::boolean("srgb", "tag the texture of a legacy (non-DX10) file as sRGB").def("false"),
    };
    return t;
}

const sdk::ParamTable& write_option_table() {
    static const sdk::ParamTable t{
        sdk::one_of("dx10", {"auto", "always", "never"}, "DX10 header extension: when needed, always or never")
            .def("auto"),
    };
    return t;
}

af_container make_container() {
    static const char* const kMetaKeys[] = {"dds_header", nullptr}; // "legacy" or "dx10": what a re-export keeps
    return sdk::make_container({
        .name = "dds",
        .extensions = ".dds",
        .description = "DirectDraw Surface: legacy and DX10 headers, mips, cubes, arrays, volumes",
        .version = 1,
        .probe = probe,
        .read = read,
        .write = write,
        .info = info,
        .read_options = &read_option_table(),
        .write_options = &write_option_table(),
        .meta_keys = kMetaKeys,
    });
}

} // namespace

const af_container* container() {
    static const af_container c = make_container();
    return &c;
}

} // namespace af::dds
