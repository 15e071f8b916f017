#include "dds_reader.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <cstring>
#include <string>

namespace af::dds {

using sdk::format;
using ull = unsigned long long;

namespace {

// Keeps the whole surfaces of a short file that still form a texture: the
// complete mips of a single surface chain, or the complete layers (every
// face and mip) of an array or cube.
void cut_to_available(ReadPlan& p, const DdsLayout& l) {
    uint64_t have = l.available_bytes();
    TextureDesc& d = p.desc;
    uint64_t copies = uint64_t(d.layers) * d.faces;
    if (copies == 1) {
        uint64_t sum = 0;
        uint32_t mips = 0;
        while (mips < d.mips && sum + l.mip_bytes[mips] <= have) sum += l.mip_bytes[mips++];
        if (mips == 0)
            sdk::invalid(l.file_size, format("truncated: the top mip needs %llu bytes at offset %llu, file has %llu",
                                             (ull)l.mip_bytes[0], (ull)l.data_offset, (ull)l.file_size));
        p.warnings.push_back(
            {l.file_size,
             format("permissive: file is %llu bytes, header describes %llu; read %u of %u "
                    "mip levels (%llu of %llu surfaces)",
                    (ull)l.file_size, (ull)(l.data_offset + l.data_bytes), mips, d.mips, (ull)mips, (ull)d.mips)});
        d.mips = mips;
        return;
    }
    uint64_t per_layer = l.chain_bytes * d.faces;
    uint64_t layers = have / per_layer;
    if (layers == 0)
        sdk::invalid(l.file_size,
                     format("truncated: not even one complete %s (%llu bytes at offset %llu) in a %llu-byte "
                            "file",
                            d.faces == 6 ? "cube" : "layer", (ull)per_layer, (ull)l.data_offset, (ull)l.file_size));
    p.warnings.push_back({l.file_size, format("permissive: file is %llu bytes, header describes %llu; read %llu of %u "
                                              "layers (%llu of %llu surfaces)",
                                              (ull)l.file_size, (ull)(l.data_offset + l.data_bytes), (ull)layers,
                                              d.layers, (ull)(layers * d.faces * d.mips), (ull)l.surface_count())});
    d.layers = uint32_t(layers);
}

} // namespace

ReadOptions read_options(const af_options* options, const af_host* host) {
    sdk::Options o(options);
    ReadOptions r;
    r.permissive = o.flag("permissive", false);
    r.srgb = o.flag("srgb", false);
    if (host) {
        r.limits.max_dimension = host->max_dimension;
        r.limits.max_surfaces = host->max_surfaces;
        r.limits.max_texture_bytes = host->max_texture_bytes;
    }
    return r;
}

ReadPlan plan_read(const uint8_t* data, uint64_t size, const ReadOptions& opt) {
    DdsLayout l = describe(data, size, opt.limits, opt.permissive);
    ReadPlan p;
    p.desc = l.desc;
    p.data_offset = l.data_offset;
    p.dx10 = l.header.dx10.has_value();
    p.warnings = l.header_problems;
    uint64_t have = l.available_bytes();
    if (have < l.data_bytes) {
        if (!opt.permissive) {
            std::string why = explain_length(l);
            sdk::invalid(size,
                         format("truncated: file is %llu bytes, the header describes %llu (data at %llu + %llu "
                                "bytes); %llu bytes missing%s%s (option permissive=true reads the whole "
                                "surfaces present)",
                                (ull)size, (ull)(l.data_offset + l.data_bytes), (ull)l.data_offset, (ull)l.data_bytes,
                                (ull)(l.data_bytes - have), why.empty() ? "" : "; ", why.c_str()));
        }
        cut_to_available(p, l);
    } else if (have > l.data_bytes) {
        std::string why = explain_length(l);
        p.warnings.push_back(
            {l.data_offset + l.data_bytes,
             format("%llu trailing bytes after the %llu bytes of texture data%s%s", (ull)(have - l.data_bytes),
                    (ull)l.data_bytes, why.empty() ? "" : ": ", why.c_str())});
    }
    if (opt.srgb && !l.header.dx10) {
        p.desc.format = with_srgb(p.desc.format, true);
        p.desc.flags |= AF_TEX_SRGB;
    }
    p.data_size = texture_bytes(p.desc);
    return p;
}

Texture read_dds(const uint8_t* data, uint64_t size, const ReadOptions& opt, std::vector<Problem>* warnings) {
    ReadPlan p = plan_read(data, size, opt);
    Texture t;
    t.desc = p.desc;
    t.data.assign(data + p.data_offset, data + p.data_offset + p.data_size);
    if (warnings) *warnings = std::move(p.warnings);
    return t;
}

// The container's callbacks (plugin.cpp).
int32_t probe_dds(const uint8_t* head, uint64_t head_size, const char* path) {
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

af_status read_container(const af_host* host, const af_input* in, const af_options* options, af_texture* out,
                         af_error* error) {
    return sdk::guard(error, [&] {
        if (!in || !out) sdk::fail(AF_ERR_USAGE, AF_NO_OFFSET, "read: missing input or output");
        ReadOptions opt = read_options(options, host);
        ReadPlan plan = plan_read(in->data, in->size, opt);
        sdk::describe_texture(plan.desc, out);
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

} // namespace af::dds
