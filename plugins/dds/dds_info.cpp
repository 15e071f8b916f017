#include "dds_info.hpp"

#include "dds_pixel_format.hpp"
#include "dds_reader.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

namespace af::dds {

using nlohmann::json;
using sdk::format;
using ull = unsigned long long;

namespace {

struct FlagName {
    uint32_t bit;
    const char* name;
};

constexpr FlagName kHeaderFlags[] = {{hflag::caps, "CAPS"},
                                     {hflag::height, "HEIGHT"},
                                     {hflag::width, "WIDTH"},
                                     {hflag::pitch, "PITCH"},
                                     {hflag::pixelformat, "PIXELFORMAT"},
                                     {hflag::mipmapcount, "MIPMAPCOUNT"},
                                     {hflag::linearsize, "LINEARSIZE"},
                                     {hflag::depth, "DEPTH"}};
constexpr FlagName kPfFlags[] = {{pfflag::alphapixels, "ALPHAPIXELS"},
                                 {pfflag::alpha, "ALPHA"},
                                 {pfflag::fourcc, "FOURCC"},
                                 {pfflag::palette8, "PALETTEINDEXED8"},
                                 {pfflag::rgb, "RGB"},
                                 {pfflag::yuv, "YUV"},
                                 {pfflag::luminance, "LUMINANCE"},
                                 {pfflag::bumpluminance, "BUMPLUMINANCE"},
                                 {pfflag::bumpdudv, "BUMPDUDV"},
                                 {0x80000000u, "NORMAL(nvtt)"}};
constexpr FlagName kCaps[] = {{caps::complex, "COMPLEX"}, {caps::texture, "TEXTURE"}, {caps::mipmap, "MIPMAP"}};
constexpr FlagName kCaps2[] = {{caps2::cubemap, "CUBEMAP"}, {caps2::pos_x, "POSITIVEX"}, {caps2::neg_x, "NEGATIVEX"},
                               {caps2::pos_y, "POSITIVEY"}, {caps2::neg_y, "NEGATIVEY"}, {caps2::pos_z, "POSITIVEZ"},
                               {caps2::neg_z, "NEGATIVEZ"}, {caps2::volume, "VOLUME"}};

template <size_t N> std::vector<std::string> names(uint32_t v, const FlagName (&table)[N]) {
    std::vector<std::string> out;
    uint32_t known = 0;
    for (const auto& f : table) {
        known |= f.bit;
        if (v & f.bit) out.push_back(f.name);
    }
    if (v & ~known) out.push_back(format("0x%08x", v & ~known));
    return out;
}

std::string joined(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : "|") + x;
    return s.empty() ? "none" : s;
}

const char* alpha_name(uint32_t a) {
    switch (a) {
    case AF_ALPHA_STRAIGHT:
        return "straight";
    case AF_ALPHA_PREMULTIPLIED:
        return "premultiplied";
    case AF_ALPHA_OPAQUE:
        return "opaque";
    case AF_ALPHA_CUSTOM:
        return "custom";
    default:
        return "unknown";
    }
}

json raw_header_json(const RawHeader& h) {
    json j;
    j["size"] = h.size;
    j["flags"] = h.flags;
    j["flag_names"] = names(h.flags, kHeaderFlags);
    j["height"] = h.height;
    j["width"] = h.width;
    j["pitch_or_linear_size"] = h.pitch_or_linear_size;
    j["depth"] = h.depth;
    j["mip_map_count"] = h.mip_count;
    j["caps"] = h.caps;
    j["caps_names"] = names(h.caps, kCaps);
    j["caps2"] = h.caps2;
    j["caps2_names"] = names(h.caps2, kCaps2);
    json pf;
    pf["size"] = h.pf.size;
    pf["flags"] = h.pf.flags;
    pf["flag_names"] = names(h.pf.flags, kPfFlags);
    pf["fourcc"] = (h.pf.flags & pfflag::fourcc) ? json(fourcc_text(h.pf.fourcc)) : json(nullptr);
    pf["fourcc_value"] = h.pf.fourcc;
    pf["rgb_bit_count"] = h.pf.bit_count;
    pf["masks"] = {{"r", h.pf.r_mask}, {"g", h.pf.g_mask}, {"b", h.pf.b_mask}, {"a", h.pf.a_mask}};
    j["pixel_format"] = pf;
    if (h.dx10) {
        const auto& x = *h.dx10;
        const FormatInfo* f = x.dxgi_format < FMT_AF_BASE ? format_info(x.dxgi_format) : nullptr;
        j["dx10"] = {{"dxgi_format", x.dxgi_format},
                     {"dxgi_name", f ? json("DXGI_FORMAT_" + std::string(f->name)) : json(nullptr)},
                     {"resource_dimension", x.dimension},
                     {"misc_flag", x.misc_flag},
                     {"array_size", x.array_size},
                     {"misc_flags2", x.misc_flags2}};
    } else {
        j["dx10"] = nullptr;
    }
    return j;
}

std::string raw_header_text(const RawHeader& h) {
    std::string t;
    t += format("header:      flags 0x%08x (%s)\n", h.flags, joined(names(h.flags, kHeaderFlags)).c_str());
    t += format("             width %u, height %u, depth %u, mipMapCount %u, pitchOrLinearSize %u\n", h.width, h.height,
                h.depth, h.mip_count, h.pitch_or_linear_size);
    t += format("             caps 0x%08x (%s), caps2 0x%08x (%s)\n", h.caps, joined(names(h.caps, kCaps)).c_str(),
                h.caps2, joined(names(h.caps2, kCaps2)).c_str());
    if (h.pf.flags & pfflag::fourcc)
        t += format("pixel fmt:   flags 0x%08x (%s), FourCC %s\n", h.pf.flags,
                    joined(names(h.pf.flags, kPfFlags)).c_str(), fourcc_text(h.pf.fourcc).c_str());
    else
        t += format("pixel fmt:   flags 0x%08x (%s), %u bits, masks R 0x%08x G 0x%08x B 0x%08x A 0x%08x\n", h.pf.flags,
                    joined(names(h.pf.flags, kPfFlags)).c_str(), h.pf.bit_count, h.pf.r_mask, h.pf.g_mask, h.pf.b_mask,
                    h.pf.a_mask);
    if (h.dx10)
        t += format("DX10:        dxgiFormat %u, resourceDimension %u, miscFlag 0x%x, arraySize %u, miscFlags2 0x%x\n",
                    h.dx10->dxgi_format, h.dx10->dimension, h.dx10->misc_flag, h.dx10->array_size, h.dx10->misc_flags2);
    return t;
}

const char* dimension_name(const DdsLayout& l) {
    return l.dimension == 1 ? "1D" : l.dimension == 3 ? "volume" : l.desc.faces == 6 ? "cube" : "2D";
}

json format_json(const DdsLayout& l, const RawHeader& raw) {
    const TextureDesc& d = l.desc;
    const FormatInfo* f = format_info(d.format);
    json fj = {{"id", d.format},
               {"name", std::string(f->name)},
               {"dxgi", d.format < FMT_AF_BASE},
               {"source", l.format_source}};
    if (d.format < FMT_AF_BASE) fj["dxgi_name"] = "DXGI_FORMAT_" + std::string(f->name);
    std::string d3d = d3dfmt_name(d.format);
    if (!raw.dx10 && !d3d.empty()) fj["d3dfmt"] = d3d;
    fj["compressed"] = f->compressed();
    fj["srgb"] = f->srgb();
    return fj;
}

// Shape, data extent, per-mip placement and problems, after "format".
void add_layout_json(json& j, const DdsLayout& l, uint64_t size, const std::vector<Problem>& problems) {
    const TextureDesc& d = l.desc;
    j["dimension"] = dimension_name(l);
    j["width"] = d.width;
    j["height"] = d.height;
    j["depth"] = d.depth;
    j["mip_count"] = d.mips;
    j["layers"] = d.layers;
    j["faces"] = d.faces;
    j["surfaces"] = l.surface_count();
    j["alpha_mode"] = alpha_name(d.alpha_mode);
    j["data_offset"] = l.data_offset;
    j["data_bytes_expected"] = l.data_bytes;
    j["data_bytes_present"] = l.available_bytes();
    json mips = json::array();
    uint64_t offset = l.data_offset;
    for (uint32_t m = 0; m < d.mips; ++m) {
        mips.push_back({{"level", m},
                        {"width", mip_extent(d.width, m)},
                        {"height", mip_extent(d.height, m)},
                        {"depth", mip_extent(d.depth, m)},
                        {"bytes", l.mip_bytes[m]},
                        {"offset", offset},
                        {"complete", offset + l.mip_bytes[m] <= size}});
        offset += l.mip_bytes[m];
    }
    j["mips"] = mips;
    j["layer_stride"] = l.chain_bytes * d.faces;
    j["face_stride"] = l.chain_bytes;
    json pj = json::array();
    for (const auto& p : problems)
        pj.push_back({{"offset", p.offset == AF_NO_OFFSET ? json(nullptr) : json(p.offset)}, {"message", p.message}});
    j["problems"] = pj;
}

// The same as text: the D3DFMT name is added when the format was not found through it.
std::string layout_text(const DdsLayout& l, const RawHeader& raw, uint64_t size, const std::vector<Problem>& problems) {
    const TextureDesc& d = l.desc;
    const FormatInfo* f = format_info(d.format);
    const std::string d3d = d3dfmt_name(d.format);
    std::string text;
    std::string fmt_line =
        format("%s (%s %u)", std::string(f->name).c_str(), d.format < FMT_AF_BASE ? "DXGI" : "AssetForge id", d.format);
    text +=
        format("format:      %s, from %s%s%s\n", fmt_line.c_str(), l.format_source.c_str(),
               (!raw.dx10 && !d3d.empty() && l.format_source.find("D3DFMT") == std::string::npos) ? ", " : "",
               (!raw.dx10 && !d3d.empty() && l.format_source.find("D3DFMT") == std::string::npos) ? d3d.c_str() : "");
    text += format("shape:       %s %u×%u", dimension_name(l), d.width, d.height);
    if (l.dimension == 3) text += format("×%u", d.depth);
    text += format(", %u mip%s, %u layer%s, %u face%s, alpha %s\n", d.mips, d.mips == 1 ? "" : "s", d.layers,
                   d.layers == 1 ? "" : "s", d.faces, d.faces == 1 ? "" : "s", alpha_name(d.alpha_mode));
    text += format("data:        at %llu, %llu bytes expected, %llu present\n", (ull)l.data_offset, (ull)l.data_bytes,
                   (ull)l.available_bytes());
    uint64_t offset = l.data_offset;
    for (uint32_t m = 0; m < d.mips; ++m) {
        text += format("  mip %2u:    %u×%u", m, mip_extent(d.width, m), mip_extent(d.height, m));
        if (l.dimension == 3) text += format("×%u", mip_extent(d.depth, m));
        text += format("  %llu bytes at %llu%s\n", (ull)l.mip_bytes[m], (ull)offset,
                       offset + l.mip_bytes[m] <= size ? "" : "  (missing)");
        offset += l.mip_bytes[m];
    }
    if (d.layers * d.faces > 1)
        text += format("  (mips above are layer 0 face 0; each face adds %llu bytes, each layer %llu)\n",
                       (ull)l.chain_bytes, (ull)(l.chain_bytes * d.faces));
    if (problems.empty()) text += "problems:    none\n";
    for (const auto& p : problems) {
        if (p.offset == AF_NO_OFFSET)
            text += format("problem:     %s\n", p.message.c_str());
        else
            text += format("problem:     @%llu: %s\n", (ull)p.offset, p.message.c_str());
    }
    return text;
}

} // namespace

InfoReport info_report(const uint8_t* data, uint64_t size, const Limits& limits) {
    RawHeader raw = parse_raw_header(data, size); // no header at all: nothing to report
    json j;
    std::string text;
    j["container"] = "dds";
    j["file_size"] = size;
    j["header"] = raw_header_json(raw);
    text += format("file:        %llu bytes, %s header\n", (ull)size, raw.dx10 ? "DX10" : "legacy");
    text += raw_header_text(raw);

    DdsLayout l;
    try {
        // Permissive so that wrong structure sizes are reported as problems, not a failure.
        l = describe(data, size, limits, true);
    } catch (const sdk::Error& e) {
        j["valid"] = false;
        j["error"] = {{"code", int(e.status())},
                      {"offset", e.offset() == AF_NO_OFFSET ? json(nullptr) : json(e.offset())},
                      {"message", e.what()}};
        text += format("ERROR:       %s\n", e.what());
        return {j.dump(2), text};
    }
    std::vector<Problem> problems = consistency_problems(l);
    j["valid"] = !(l.available_bytes() < l.data_bytes); // a short file
    j["format"] = format_json(l, raw);
    add_layout_json(j, l, size, problems);
    text += layout_text(l, raw, size, problems);
    return {j.dump(2), text};
}

af_status info_container(const af_host* host, const af_input* in, const af_options*, af_info_text* out,
                         af_error* error) {
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

} // namespace af::dds
