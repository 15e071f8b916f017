#include "dds_layout.hpp"

#include "dds_pixel_format.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

namespace af::dds {

using sdk::format;
using ull = unsigned long long;

namespace {

// a * b, or an error naming the field when 64 bits cannot hold it.
uint64_t checked_mul(uint64_t a, uint64_t b, uint64_t offset, const char* what) {
    uint64_t r;
    if (__builtin_mul_overflow(a, b, &r))
        sdk::invalid(offset, format("%s overflows 64 bits (%llu × %llu)", what, (ull)a, (ull)b));
    return r;
}
uint64_t checked_add(uint64_t a, uint64_t b, uint64_t offset, const char* what) {
    uint64_t r;
    if (__builtin_add_overflow(a, b, &r)) sdk::invalid(offset, format("%s overflows 64 bits", what));
    return r;
}

// Surface bytes from the format table, with overflow checks (surface_bytes
// itself may wrap for hostile sizes).
uint64_t checked_surface_bytes(uint32_t fmt, uint32_t w, uint32_t h, uint32_t d) {
    uint64_t row = row_pitch(fmt, w);
    uint64_t rows = block_rows(fmt, h);
    uint64_t slice = checked_mul(row, rows, off::width, "surface size");
    return checked_mul(slice, d ? d : 1, off::depth, "volume size");
}

void shape_from_dx10(DdsLayout& l, bool& volume) {
    const Dx10Header& x = *l.header.dx10;
    if (x.dxgi_format == 0) sdk::invalid(off::dxgi_format, "DX10 header names DXGI_FORMAT_UNKNOWN (0) at offset 128");
    const FormatInfo* f = x.dxgi_format < FMT_AF_BASE ? format_info(x.dxgi_format) : nullptr;
    if (!f)
        throw sdk::Error(AF_ERR_UNSUPPORTED,
                         format("unsupported: DXGI format %u at offset 128 is not in the format table", x.dxgi_format),
                         off::dxgi_format);
    l.desc.format = f->id;
    l.format_source = "DX10 header";
    if (x.array_size == 0) sdk::invalid(off::array_size, "DX10 arraySize is 0 at offset 140 (must be at least 1)");
    switch (x.dimension) {
    case kDimTexture1D:
        if (l.header.height > 1)
            sdk::invalid(off::height,
                         format("1-D texture (resourceDimension 2) with height %u at offset 12", l.header.height));
        l.desc.height = 1;
        l.dimension = 1;
        break;
    case kDimTexture2D:
        l.dimension = 2;
        break;
    case kDimTexture3D:
        l.dimension = 3;
        volume = true;
        if (x.array_size != 1)
            sdk::invalid(off::array_size,
                         format("3-D texture with arraySize %u at offset 140 (must be 1)", x.array_size));
        if (x.misc_flag & kMiscTextureCube)
            sdk::invalid(off::misc_flag, "3-D texture marked as a cubemap (miscFlag 0x4) at offset 136");
        break;
    default:
        sdk::invalid(off::dimension,
                     format("resourceDimension %u at offset 132 is not 2 (1-D), 3 (2-D) or 4 (3-D)", x.dimension));
    }
    if (x.misc_flag & kMiscTextureCube) {
        if (l.dimension != 2) sdk::invalid(off::misc_flag, "cubemap flag on a 1-D texture at offset 136");
        l.desc.faces = 6;
        l.desc.flags |= AF_TEX_CUBE;
    }
    l.desc.layers = x.array_size;
    uint32_t alpha = x.misc_flags2 & kMiscFlags2AlphaMask;
    if (alpha > AF_ALPHA_CUSTOM) {
        l.header_problems.push_back(
            {off::misc_flags2, format("miscFlags2 alpha mode %u is not defined; read as unknown", alpha)});
        alpha = AF_ALPHA_UNKNOWN;
    }
    l.desc.alpha_mode = alpha;
}

void shape_from_legacy(DdsLayout& l, bool& volume) {
    const RawHeader& h = l.header;
    LegacyFormat lf = format_from_pixel_format(h.pf);
    l.desc.format = lf.format;
    l.desc.alpha_mode = lf.alpha_mode;
    l.format_source = lf.source;
    bool cube = h.caps2 & caps2::cubemap;
    volume = (h.caps2 & caps2::volume) || ((h.flags & hflag::depth) && h.depth > 1);
    if (cube && volume)
        sdk::invalid(off::caps2, format("caps2 0x%08x at offset 112 marks both a cubemap and a volume", h.caps2));
    if (cube) {
        if ((h.caps2 & caps2::all_faces) != caps2::all_faces)
            throw sdk::Error(AF_ERR_UNSUPPORTED,
                             format("unsupported: partial cubemap, caps2 0x%08x at offset 112 lists faces 0x%04x of "
                                    "0xfc00 (D3D10+ loaders reject partial cubes too)",
                                    h.caps2, h.caps2 & caps2::all_faces),
                             off::caps2);
        l.desc.faces = 6;
        l.desc.flags |= AF_TEX_CUBE;
    }
    l.dimension = volume ? 3 : 2;
}

} // namespace

DdsLayout describe(const uint8_t* data, uint64_t size, const Limits& limits, bool permissive) {
    DdsLayout l;
    l.header = parse_raw_header(data, size);
    l.file_size = size;
    l.data_offset = l.header.data_offset();
    const RawHeader& h = l.header;

    if (h.size != kHeaderSize) {
        std::string msg = format("DDS_HEADER size field at offset 4 is %u, expected 124", h.size);
        if (!permissive) sdk::invalid(off::size, msg + " (option permissive=true reads it anyway)");
        l.header_problems.push_back({off::size, msg});
    }
    if (h.pf.size != kPixelFormatSize) {
        std::string msg = format("DDS_PIXELFORMAT size field at offset 76 is %u, expected 32", h.pf.size);
        if (!permissive) sdk::invalid(off::pf_size, msg + " (option permissive=true reads it anyway)");
        l.header_problems.push_back({off::pf_size, msg});
    }
    if (h.width == 0) sdk::invalid(off::width, "width is 0 at offset 16");
    l.desc.width = h.width;
    l.desc.height = h.height;

    bool volume = false;
    if (h.dx10)
        shape_from_dx10(l, volume);
    else
        shape_from_legacy(l, volume);
    if (l.desc.height == 0) sdk::invalid(off::height, "height is 0 at offset 12");
    if (volume) {
        if (h.depth == 0) sdk::invalid(off::depth, "volume texture with depth 0 at offset 24");
        l.desc.depth = h.depth;
        l.desc.flags |= AF_TEX_VOLUME;
    }
    const FormatInfo* f = format_info(l.desc.format);
    if (f->srgb()) l.desc.flags |= AF_TEX_SRGB;
    if (l.desc.alpha_mode == AF_ALPHA_PREMULTIPLIED) l.desc.flags |= AF_TEX_PREMULTIPLIED;

    if (limits.max_dimension) {
        uint32_t biggest = std::max({l.desc.width, l.desc.height, l.desc.depth});
        if (biggest > limits.max_dimension)
            throw sdk::Error(AF_ERR_NO_MEMORY,
                             format("texture %u×%u×%u exceeds the configured maximum dimension %u", l.desc.width,
                                    l.desc.height, l.desc.depth, limits.max_dimension),
                             biggest == l.desc.width    ? off::width
                             : biggest == l.desc.height ? off::height
                                                        : off::depth);
    }

    uint32_t full = full_mip_count(l.desc.width, l.desc.height, l.desc.depth);
    uint32_t mips = h.mip_count ? h.mip_count : 1;
    if (mips > full)
        sdk::invalid(off::mips, format("mip count %u at offset 28 exceeds the %u levels a %u×%u×%u texture can have",
                                       h.mip_count, full, l.desc.width, l.desc.height, l.desc.depth));
    l.desc.mips = mips;

    uint64_t surfaces = checked_mul(checked_mul(l.desc.layers, l.desc.faces, off::array_size, "surface count"), mips,
                                    off::mips, "surface count");
    if (limits.max_surfaces && surfaces > limits.max_surfaces)
        throw sdk::Error(
            AF_ERR_NO_MEMORY,
            format("%llu surfaces exceed the configured maximum of %u", (ull)surfaces, limits.max_surfaces),
            h.dx10 ? off::array_size : off::mips);

    for (uint32_t m = 0; m < mips; ++m) {
        uint64_t b = checked_surface_bytes(l.desc.format, mip_extent(l.desc.width, m), mip_extent(l.desc.height, m),
                                           mip_extent(l.desc.depth, m));
        l.mip_bytes.push_back(b);
        l.chain_bytes = checked_add(l.chain_bytes, b, off::mips, "mip chain size");
    }
    l.data_bytes = checked_mul(l.chain_bytes, uint64_t(l.desc.layers) * l.desc.faces,
                               h.dx10 ? off::array_size : off::caps2, "texture size");
    if (limits.max_texture_bytes && l.data_bytes > limits.max_texture_bytes)
        throw sdk::Error(AF_ERR_NO_MEMORY,
                         format("texture needs %llu bytes, more than the configured maximum of %llu", (ull)l.data_bytes,
                                (ull)limits.max_texture_bytes),
                         off::width);
    return l;
}

std::string explain_length(const DdsLayout& l) {
    uint64_t have = l.available_bytes();
    if (have == l.data_bytes) return "";
    const TextureDesc& d = l.desc;
    uint64_t copies = uint64_t(d.layers) * d.faces;
    // Fewer or more mip levels than the header says.
    uint32_t full = full_mip_count(d.width, d.height, d.depth);
    uint64_t chain = 0;
    for (uint32_t m = 0; m < full; ++m) {
        chain += surface_bytes(d.format, mip_extent(d.width, m), mip_extent(d.height, m), mip_extent(d.depth, m));
        if (m + 1 != d.mips && chain * copies == have)
            return format("the data holds exactly %u mip level%s, the header says %u", m + 1, m ? "s" : "", d.mips);
    }
    const FormatInfo* f = format_info(d.format);
    if (f->compressed()) {
        // Sizes computed as if the blocks were of the other BC size.
        uint64_t other = f->block_bytes == 8 ? 16 : 8;
        uint64_t alt = l.data_bytes / f->block_bytes * other;
        if (alt == have)
            return format("the length matches %llu-byte blocks; %s uses %u-byte blocks", (ull)other,
                          std::string(f->name).c_str(), f->block_bytes);
        // Single-block mips (4×4 and smaller) counted as 8 bytes whatever the
        // block size: the miscount in the EchoVR notes (21848 for a 128×128 BC7 chain).
        uint64_t small = 0, normal = 0;
        for (uint32_t m = 0; m < d.mips; ++m) {
            uint32_t w = mip_extent(d.width, m), h = mip_extent(d.height, m);
            uint64_t b = l.mip_bytes[m];
            if (w <= 4 && h <= 4)
                small += b / f->block_bytes * 8;
            else
                normal += b;
        }
        if ((small + normal) * copies == have && have != l.data_bytes)
            return "the length matches single-block mips (4×4 and smaller) counted as 8-byte blocks (a known miscount)";
        // Mips below 4×4 counted as texels × bits per texel instead of whole blocks.
        uint64_t texel_count = 0;
        for (uint32_t m = 0; m < d.mips; ++m) {
            uint64_t w = mip_extent(d.width, m), h = mip_extent(d.height, m);
            texel_count += w * h * f->block_bytes / 16;
        }
        if (texel_count * copies == have)
            return "the length matches sizes counted per texel, without rounding up to 4×4 blocks";
    }
    if (have > l.data_bytes) return "";
    if (have % std::max<uint64_t>(l.chain_bytes, 1) == 0 && copies > 1)
        return format("the data holds %llu complete faces/layers of %llu", (ull)(have / l.chain_bytes), (ull)copies);
    return "";
}

std::string block_multiple_problem(uint32_t width, uint32_t height, uint32_t block_w, uint32_t block_h) {
    return format("block-compressed top level %u×%u is not a multiple of %u×%u: Direct3D 10 and later refuse to "
                  "create it (resize to %u×%u)",
                  width, height, block_w, block_h, (width + block_w - 1) / block_w * block_w,
                  (height + block_h - 1) / block_h * block_h);
}

std::vector<Problem> consistency_problems(const DdsLayout& l) {
    std::vector<Problem> out = l.header_problems;
    const RawHeader& h = l.header;
    const TextureDesc& d = l.desc;
    const FormatInfo* f = format_info(d.format);

    uint64_t have = l.available_bytes();
    if (have < l.data_bytes) {
        std::string why = explain_length(l);
        out.push_back(
            {l.file_size, format("file is %llu bytes; the header describes %llu (data at %llu + %llu); "
                                 "%llu bytes missing%s%s",
                                 (ull)l.file_size, (ull)(l.data_offset + l.data_bytes), (ull)l.data_offset,
                                 (ull)l.data_bytes, (ull)(l.data_bytes - have), why.empty() ? "" : ": ", why.c_str())});
    } else if (have > l.data_bytes) {
        std::string why = explain_length(l);
        out.push_back({l.data_offset + l.data_bytes,
                       format("%llu trailing bytes after the %llu bytes of texture data%s%s",
                              (ull)(have - l.data_bytes), (ull)l.data_bytes, why.empty() ? "" : ": ", why.c_str())});
    }

    if ((h.flags & hflag::required) != hflag::required)
        out.push_back(
            {off::flags, format("header flags 0x%08x lack some of CAPS|HEIGHT|WIDTH|PIXELFORMAT (0x1007)", h.flags)});
    if (d.mips > 1 && !(h.flags & hflag::mipmapcount))
        out.push_back({off::flags, format("mip count %u but flag MIPMAPCOUNT (0x20000) is clear", d.mips)});
    if (d.mips > 1 && (h.caps & (caps::mipmap | caps::complex)) != (caps::mipmap | caps::complex))
        out.push_back({off::caps, format("%u mips but caps 0x%08x lack MIPMAP|COMPLEX (0x400008)", d.mips, h.caps)});
    if (!(h.caps & caps::texture)) out.push_back({off::caps, format("caps 0x%08x lack TEXTURE (0x1000)", h.caps)});
    if (d.faces == 6 && h.dx10 &&
        (h.caps2 & (caps2::cubemap | caps2::all_faces)) != (caps2::cubemap | caps2::all_faces))
        out.push_back({off::caps2, format("DX10 cubemap but caps2 0x%08x lack CUBEMAP|all faces (0xfe00)", h.caps2)});
    if (d.faces == 6 && d.width != d.height)
        out.push_back({off::width, format("cubemap faces are %u×%u, not square", d.width, d.height)});
    if (l.dimension == 3 && !(h.flags & hflag::depth))
        out.push_back({off::flags, "volume texture but flag DEPTH (0x800000) is clear"});
    if (l.dimension == 3 && !h.dx10 && !(h.caps2 & caps2::volume))
        out.push_back({off::caps2, "volume texture (DEPTH flag, depth > 1) but caps2 lack VOLUME (0x200000)"});
    if (l.dimension != 3 && h.depth > 1)
        out.push_back({off::depth, format("depth %u ignored: the header does not describe a volume", h.depth)});

    uint64_t top = surface_bytes(d.format, d.width, d.height, 1);
    uint64_t pitch = row_pitch(d.format, d.width);
    if (f->compressed()) {
        // Direct3D 10 and later refuse to create a block-compressed texture whose top level is not whole blocks
        // (texconv warns the same); smaller mips are padded by the API and are fine.
        if (d.width % f->block_w || d.height % f->block_h)
            out.push_back({off::width, block_multiple_problem(d.width, d.height, f->block_w, f->block_h)});
        if (h.flags & hflag::pitch)
            out.push_back({off::flags, "block-compressed data but flag PITCH (0x8) is set (LINEARSIZE expected)"});
        if ((h.flags & hflag::linearsize) && h.pitch_or_linear_size != top)
            out.push_back({off::pitch,
                           format("linear size %u, expected %llu for the top mip", h.pitch_or_linear_size, (ull)top)});
    } else {
        if ((h.flags & hflag::pitch) && h.pitch_or_linear_size != pitch)
            out.push_back({off::pitch, format("pitch %u, expected %llu", h.pitch_or_linear_size, (ull)pitch)});
        if (h.flags & hflag::linearsize)
            out.push_back({off::flags, "uncompressed data but flag LINEARSIZE (0x80000) is set (PITCH expected)"});
    }
    if (!h.dx10 && (h.pf.flags & pfflag::fourcc) && (h.pf.flags & ~(pfflag::fourcc | 0x80000000u)))
        out.push_back({off::pf_flags, format("pixel format flags 0x%08x mix FOURCC with mask flags", h.pf.flags)});
    if (!h.dx10 && !(h.pf.flags & pfflag::fourcc) && (h.pf.flags & pfflag::alphapixels) && !h.pf.a_mask)
        out.push_back({off::pf_flags, "ALPHAPIXELS set but the alpha mask is 0"});
    return out;
}

} // namespace af::dds
