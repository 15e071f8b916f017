// The one file that includes OpenEXR (its headers and Imath's cost every
// includer seconds of compile time: scripts/compile_cost.py).
#include "core/exr_io.hpp"

#include "assetforge/error.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/half.hpp"

#include <Iex.h>
#include <ImfChannelList.h>
#include <ImfCompression.h>
#include <ImfFrameBuffer.h>
#include <ImfHeader.h>
#include <ImfIO.h>
#include <ImfInputFile.h>
#include <ImfOutputFile.h>
#include <ImfTileDescription.h>
#include <ImfVersion.h>
#include <ImfXdr.h>

#include <algorithm>
#include <cstring>
#include <exception>
#include <mutex>

namespace af {
namespace {

constexpr uint8_t kMagic[4] = {0x76, 0x2f, 0x31, 0x01};

// The start of an error message: "NAME: ", or nothing where the caller adds the file's name itself (the host).
std::string at(const std::string& name) { return name.empty() ? "" : name + ": "; }

// OpenEXR's own sanity check refuses headers past these before it allocates
// anything (set once: they are process-wide). The texture's limits, checked
// here first, are usually lower.
constexpr int kMaxSide = 1 << 16;

void set_library_limits() {
    static std::once_flag once;
    std::call_once(once, [] {
        Imf::Header::setMaxImageSize(kMaxSide, kMaxSide);
        Imf::Header::setMaxTileSize(kMaxSide, kMaxSide);
    });
}

// The file's bytes as OpenEXR's input stream; reading past the end throws, as OpenEXR expects.
class MemoryIn final : public Imf::IStream {
  public:
    MemoryIn(std::span<const uint8_t> bytes, const std::string& name) : Imf::IStream(name.c_str()), bytes_(bytes) {}
    bool read(char c[], int n) override {
        if (n < 0 || uint64_t(n) > bytes_.size() - pos_) throw Iex::InputExc("unexpected end of file");
        std::memcpy(c, bytes_.data() + pos_, size_t(n));
        pos_ += uint64_t(n);
        return pos_ < bytes_.size();
    }
    uint64_t tellg() override { return pos_; }
    void seekg(uint64_t pos) override {
        if (pos > bytes_.size()) throw Iex::InputExc("seek past the end of file");
        pos_ = pos;
    }

  private:
    std::span<const uint8_t> bytes_;
    uint64_t pos_ = 0;
};

// The file OpenEXR writes, in memory: it seeks back to fill in the offset table.
class MemoryOut final : public Imf::OStream {
  public:
    MemoryOut() : Imf::OStream("memory") {}
    void write(const char c[], int n) override {
        if (pos_ + uint64_t(n) > bytes.size()) bytes.resize(pos_ + uint64_t(n));
        std::memcpy(bytes.data() + pos_, c, size_t(n));
        pos_ += uint64_t(n);
    }
    uint64_t tellp() override { return pos_; }
    void seekp(uint64_t pos) override { pos_ = pos; }
    std::vector<uint8_t> bytes;

  private:
    uint64_t pos_ = 0;
};

const char* compression_name(Imf::Compression c) {
    switch (c) {
    case Imf::NO_COMPRESSION:
        return "none";
    case Imf::RLE_COMPRESSION:
        return "rle";
    case Imf::ZIPS_COMPRESSION:
        return "zips";
    case Imf::ZIP_COMPRESSION:
        return "zip";
    case Imf::PIZ_COMPRESSION:
        return "piz";
    case Imf::PXR24_COMPRESSION:
        return "pxr24";
    case Imf::B44_COMPRESSION:
        return "b44";
    case Imf::B44A_COMPRESSION:
        return "b44a";
    case Imf::DWAA_COMPRESSION:
        return "dwaa";
    case Imf::DWAB_COMPRESSION:
        return "dwab";
    default:
        return "unknown";
    }
}

Imf::Compression compression_of(const std::string& name) {
    for (Imf::Compression c :
         {Imf::NO_COMPRESSION, Imf::RLE_COMPRESSION, Imf::ZIPS_COMPRESSION, Imf::ZIP_COMPRESSION, Imf::PIZ_COMPRESSION})
        if (name == compression_name(c)) return c;
    sdk::usage("EXR compression '" + name + "': one of none, rle, zips, zip, piz (the lossless ones)");
}

uint32_t le32(std::span<const uint8_t> b, size_t at) {
    return uint32_t(b[at]) | uint32_t(b[at + 1]) << 8 | uint32_t(b[at + 2]) << 16 | uint32_t(b[at + 3]) << 24;
}

// What OpenEXR 3.1 reads of a known fixed-size attribute type, whatever size
// the header states: a stated size that differs would leave it reading the
// rest of the header from another place than the size says.
size_t natural_size(const std::string& type) {
    static const std::pair<const char*, size_t> kSizes[] = {
        {"box2i", 16},
        {"box2f", 16},
        {"chromaticities", 32},
        {"compression", 1},
        {"deepImageState", 1},
        {"double", 8},
        {"envmap", 1},
        {"float", 4},
        {"int", 4},
        {"keycode", 28},
        {"lineOrder", 1},
        {"m33f", 36},
        {"m33d", 72},
        {"m44f", 64},
        {"m44d", 128},
        {"rational", 8},
        {"tiledesc", 9},
        {"timecode", 8},
        {"v2i", 8},
        {"v2f", 8},
        {"v2d", 16},
        {"v3i", 12},
        {"v3f", 12},
        {"v3d", 24},
    };
    for (const auto& [t, n] : kSizes)
        if (type == t) return n;
    return 0;
}

// An attribute's value as OpenEXR will read it: how many bytes a channel
// list takes (it reads to its end marker), a string vector's strings within
// the size (each is allocated by its stated length), a preview image's pixels
// (allocated by its width and height). False when that disagrees with `n`.
bool value_fits(const std::string& type, std::span<const uint8_t> v, size_t longest) {
    const size_t n = v.size();
    if (size_t fixed = natural_size(type)) return n == fixed;
    if (type == "floatvector") return n % 4 == 0;
    if (type == "preview") return n >= 8 && uint64_t(le32(v, 0)) * le32(v, 4) * 4 + 8 == n;
    if (type == "stringvector") {
        for (size_t pos = 0; pos < n;) {
            if (n - pos < 4 || le32(v, pos) > n - pos - 4) return false;
            pos += 4 + le32(v, pos);
        }
        return true;
    }
    if (type == "chlist") {
        size_t pos = 0;
        for (;;) {
            const size_t start = pos;
            while (pos < n && v[pos] != 0 && pos - start <= longest) ++pos;
            if (pos >= n || v[pos] != 0) return false;
            if (pos++ == start) return pos == n; // the end marker: the list must end where its size says
            if (n - pos < 16) return false;      // type, pLinear and 3 reserved bytes, x and y sampling
            pos += 16;
        }
    }
    return true; // strings and unknown (opaque) types: OpenEXR reads exactly the stated size
}

// OpenEXR allocates an attribute's value by the size the header states before
// reading it (a 2 GB string from a 1 KB file), and some values by counts of
// their own: every header is walked first as OpenEXR will read it, each size
// checked against the bytes left and each value against its size. A
// single-part file has one header, a multipart file a list ended by an empty one.
void check_attribute_sizes(std::span<const uint8_t> b, const std::string& name, int version) {
    const bool multipart = Imf::isMultiPart(version);
    // The file format's limit on names: 31 characters, 255 with the long-names flag (OpenEXR reads up to 255).
    const size_t longest = version & Imf::LONG_NAMES_FLAG ? 255 : 31;
    size_t pos = 8;
    auto text = [&](const char* what) {
        const size_t start = pos;
        while (pos < b.size() && b[pos] != 0 && pos - start <= longest) ++pos;
        if (pos >= b.size()) sdk::invalid(start, at(name) + "truncated header (" + what + ")");
        if (b[pos] != 0)
            sdk::invalid(start, at(name) + "an " + what + " longer than " + std::to_string(longest) + " characters");
        std::string t(reinterpret_cast<const char*>(b.data()) + start, pos++ - start);
        for (char& c : t) c = c >= 0x20 && c < 0x7f ? c : '?';
        return t;
    };
    for (bool empty = true;;) {
        if (pos >= b.size()) sdk::invalid(pos, at(name) + "truncated header");
        if (b[pos] == 0) {
            ++pos;
            if (!multipart || empty) return;
            empty = true;
            continue;
        }
        const std::string attr = text("attribute name"), type = text("attribute type");
        if (b.size() - pos < 4) sdk::invalid(pos, at(name) + "truncated header (attribute size)");
        const uint32_t n = le32(b, pos);
        pos += 4;
        if (n > b.size() - pos)
            sdk::invalid(pos - 4, at(name) + "attribute '" + attr + "' declares " + std::to_string(n) +
                                      " bytes, more than the file holds");
        if (!value_fits(type, b.subspan(pos, n), longest))
            sdk::invalid(pos, at(name) + "attribute '" + attr + "' (" + type + ") does not fit its " +
                                  std::to_string(n) + " bytes");
        pos += n;
        empty = false;
    }
}

struct Parsed {
    Imf::Header header;
    int version = 0;
    uint32_t width = 0, height = 0;
};

// Magic, version and the first header, and the data window against the limits.
Parsed parse_header(std::span<const uint8_t> bytes, const std::string& name, const ExrLimits& limits) {
    if (!is_exr(bytes)) sdk::invalid(0, at(name) + "not an OpenEXR file (bad magic number)");
    set_library_limits();
    Parsed p;
    MemoryIn in(bytes, name);
    int magic = 0;
    Imf::Xdr::read<Imf::StreamIO>(in, magic);
    Imf::Xdr::read<Imf::StreamIO>(in, p.version);
    if (Imf::getVersion(p.version) != Imf::EXR_VERSION || !Imf::supportsFlags(Imf::getFlags(p.version)))
        sdk::invalid(4, at(name) + "unsupported OpenEXR version " + std::to_string(p.version));
    if (Imf::isNonImage(p.version)) sdk::unsupported(at(name) + "deep OpenEXR data is not an image");
    check_attribute_sizes(bytes, name, p.version);
    p.header.readFrom(in, p.version);
    const Imath::Box2i dw = p.header.dataWindow();
    const int64_t w = int64_t(dw.max.x) - dw.min.x + 1, h = int64_t(dw.max.y) - dw.min.y + 1;
    if (w <= 0 || h <= 0) sdk::invalid(AF_NO_OFFSET, at(name) + "empty data window");
    const uint64_t limit = limits.max_dimension ? limits.max_dimension : kMaxSide;
    if (uint64_t(w) > limit || uint64_t(h) > limit)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  at(name) + "limit: " + std::to_string(w) + "x" + std::to_string(h) + " exceeds the largest side " +
                      std::to_string(limit));
    if (limits.max_texture_bytes && uint64_t(w) * uint64_t(h) * 16 > limits.max_texture_bytes)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  at(name) + "limit: " + std::to_string(w) + "x" + std::to_string(h) + " exceeds --max-texture-bytes");
    p.width = uint32_t(w), p.height = uint32_t(h);
    return p;
}

// Scanlines per chunk of each compression (OpenEXR's table), and how far it
// can shrink pixel data at most (0: no bound worth using: PIZ's Huffman runs, DWA).
struct CompressionBound {
    Imf::Compression c;
    uint64_t lines, ratio;
};
constexpr CompressionBound kBounds[] = {
    {Imf::NO_COMPRESSION, 1, 1},      {Imf::RLE_COMPRESSION, 1, 64},      {Imf::ZIPS_COMPRESSION, 1, 1100},
    {Imf::ZIP_COMPRESSION, 16, 1100}, {Imf::PXR24_COMPRESSION, 16, 1400}, {Imf::B44_COMPRESSION, 32, 3},
    {Imf::B44A_COMPRESSION, 32, 11},  {Imf::PIZ_COMPRESSION, 32, 0},      {Imf::DWAA_COMPRESSION, 32, 0},
    {Imf::DWAB_COMPRESSION, 256, 0},
};

// Before OpenEXR allocates the offset table or anything is allocated for
// pixels: what the header promises against what the file's size can hold.
// Each chunk takes an 8-byte table entry, and compressed pixel data is at
// least 1/ratio of the raw, so a small file declaring a huge image is a
// truncated or hostile one, refused without allocating for it.
void check_size_against_file(const Parsed& p, std::span<const uint8_t> bytes, const std::string& name) {
    const Imf::Compression c = p.header.compression();
    CompressionBound b{c, 256, 0};
    for (const auto& k : kBounds)
        if (k.c == c) b = k;
    uint64_t chunks = (uint64_t(p.height) + b.lines - 1) / b.lines;
    if (p.header.hasTileDescription()) {
        const Imf::TileDescription& t = p.header.tileDescription();
        if (t.xSize == 0 || t.ySize == 0) sdk::invalid(AF_NO_OFFSET, at(name) + "zero tile size");
        chunks = (uint64_t(p.width) + t.xSize - 1) / t.xSize * ((uint64_t(p.height) + t.ySize - 1) / t.ySize);
    }
    uint64_t texel_bytes = 0;
    for (auto ch = p.header.channels().begin(); ch != p.header.channels().end(); ++ch)
        texel_bytes += ch.channel().type == Imf::HALF ? 2 : 4;
    const uint64_t raw = uint64_t(p.width) * p.height * texel_bytes;
    const std::string dims = std::to_string(p.width) + "x" + std::to_string(p.height);
    if (chunks > bytes.size() / 8 || (b.ratio && raw / b.ratio > bytes.size()))
        sdk::invalid(AF_NO_OFFSET, at(name) + "truncated: a " + dims + " " + compression_name(c) +
                                       " image cannot fit in the file's " + std::to_string(bytes.size()) + " bytes");
}

ExrHeader describe(const Parsed& p) {
    ExrHeader out;
    out.width = p.width, out.height = p.height;
    // OpenEXR keeps channels sorted by name (A, B, G, R): shown in the order a texture has them.
    std::vector<std::string> names;
    for (auto c = p.header.channels().begin(); c != p.header.channels().end(); ++c) {
        names.emplace_back(c.name());
        out.all_half = out.all_half && c.channel().type == Imf::HALF;
    }
    auto rank = [](const std::string& n) {
        const size_t at = std::string_view("RGBAY").find(n);
        return n.size() == 1 && at != std::string_view::npos ? at : 5;
    };
    std::stable_sort(names.begin(), names.end(), [&](const auto& a, const auto& b) { return rank(a) < rank(b); });
    for (const auto& n : names) out.channels += (out.channels.empty() ? "" : ",") + n;
    out.compression = compression_name(p.header.compression());
    out.tiled = p.header.hasTileDescription();
    return out;
}

// OpenEXR throws its own exceptions (Iex) and the standard library's: each becomes an error naming the file.
template <class F> auto guarded(const std::string& name, F&& f) {
    try {
        return f();
    } catch (const sdk::Error&) {
        throw;
    } catch (const std::bad_alloc&) {
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, at(name) + "out of memory reading OpenEXR data");
    } catch (const std::exception& e) {
        sdk::invalid(AF_NO_OFFSET, at(name) + "bad OpenEXR file: " + e.what());
    }
}

// Which of the file's channels fill R, G, B and A ("" where none does), and the texture's format.
struct ChannelMap {
    std::string source[4];
    uint32_t format = FMT_UNKNOWN;
    unsigned components = 4;
};

ChannelMap channel_map(const Imf::ChannelList& ch, const std::string& name) {
    ChannelMap l;
    bool all_half = true, any = false;
    for (auto c = ch.begin(); c != ch.end(); ++c) {
        const std::string n = c.name();
        if (c.channel().xSampling != 1 || c.channel().ySampling != 1)
            sdk::unsupported(at(name) + "subsampled OpenEXR channel '" + n + "'");
        const int at = n == "R" ? 0 : n == "G" ? 1 : n == "B" ? 2 : n == "A" ? 3 : -1;
        if (at >= 0) l.source[at] = n, any = true;
        all_half = all_half && c.channel().type == Imf::HALF;
    }
    const bool lone_y = !any && ch.findChannel("Y");
    if (lone_y) l.source[0] = l.source[1] = l.source[2] = "Y";
    if (!any && !lone_y) sdk::unsupported(at(name) + "no R, G, B, A or Y channel (layered OpenEXR names are not read)");
    const bool lone_r = !l.source[0].empty() && l.source[1].empty() && l.source[2].empty() && l.source[3].empty();
    if (lone_r) {
        l.components = 1;
        l.format = all_half ? FMT_R16_FLOAT : FMT_R32_FLOAT;
    } else {
        l.format = all_half ? FMT_R16G16B16A16_FLOAT : FMT_R32G32B32A32_FLOAT;
    }
    return l;
}

Texture read_pixels(std::span<const uint8_t> bytes, const std::string& name, const Parsed& p) {
    MemoryIn in(bytes, name);
    Imf::InputFile file(in);
    const ChannelMap l = channel_map(file.header().channels(), name);
    TextureDesc d;
    d.format = l.format;
    d.width = p.width, d.height = p.height;
    d.flags = AF_TEX_LINEAR;
    Texture t(d);
    const bool half = l.format == FMT_R16_FLOAT || l.format == FMT_R16G16B16A16_FLOAT;
    const size_t elem = half ? 2 : 4, xstride = elem * l.components, ystride = xstride * p.width;
    const Imf::PixelType type = half ? Imf::HALF : Imf::FLOAT;
    const Imath::Box2i dw = file.header().dataWindow();
    Imf::FrameBuffer fb;
    for (unsigned c = 0; c < l.components; ++c) {
        char* base = reinterpret_cast<char*>(t.data.data()) + c * elem;
        if (!l.source[c].empty() && (c == 0 || l.source[c] != "Y"))
            fb.insert(l.source[c], Imf::Slice::Make(type, base, dw, xstride, ystride, 1, 1, c == 3 ? 1.0 : 0.0));
    }
    file.setFrameBuffer(fb);
    file.readPixels(dw.min.y, dw.max.y);
    // Absent channels: colour 0 and alpha 1; a lone Y is grey in R, G and B.
    auto fill = [&](auto* px, auto zero, auto one) {
        for (size_t i = 0; i < size_t(p.width) * p.height; ++i) {
            auto* q = px + i * l.components;
            for (unsigned c = 0; c < l.components; ++c)
                if (l.source[c].empty())
                    q[c] = c == 3 ? one : zero;
                else if (l.source[c] == "Y" && c > 0)
                    q[c] = q[0];
        }
    };
    if (half)
        fill(reinterpret_cast<uint16_t*>(t.data.data()), uint16_t(0), float_to_half(1.0f));
    else
        fill(reinterpret_cast<float*>(t.data.data()), 0.0f, 1.0f);
    return t;
}

bool exactly_half(const float* v, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (half_to_float(float_to_half(v[i])) != v[i] && !(v[i] != v[i])) return false;
    return true;
}

} // namespace

bool is_exr(std::span<const uint8_t> head) { return head.size() >= 4 && std::memcmp(head.data(), kMagic, 4) == 0; }

ExrHeader read_exr_header(std::span<const uint8_t> bytes, const std::string& name, const ExrLimits& limits) {
    return guarded(name, [&] { return describe(parse_header(bytes, name, limits)); });
}

Texture decode_exr(std::span<const uint8_t> bytes, const std::string& name, const ExrLimits& limits) {
    return guarded(name, [&] {
        const Parsed p = parse_header(bytes, name, limits);
        check_size_against_file(p, bytes, name);
        return read_pixels(bytes, name, p);
    });
}

std::vector<uint8_t> encode_exr(const Texture& img, const ExrWriteOptions& opt) {
    const uint32_t f = img.desc.format;
    const bool one = f == FMT_R16_FLOAT || f == FMT_R32_FLOAT,
               src_half = f == FMT_R16_FLOAT || f == FMT_R16G16B16A16_FLOAT;
    if (!one && !src_half && f != FMT_R32G32B32A32_FLOAT)
        sdk::unsupported("EXR writes half or float RGBA or R surfaces, not format id " + std::to_string(f));
    const unsigned n = one ? 1 : 4;
    const size_t count = size_t(img.desc.width) * img.desc.height * n;
    if (img.data.size() < count * (src_half ? 2 : 4)) sdk::invalid(AF_NO_OFFSET, "EXR: surface data too short");
    // Both forms of the values: the file's pixel type decides which the slices read.
    std::vector<uint16_t> halves(count);
    std::vector<float> full(count);
    if (src_half) {
        std::memcpy(halves.data(), img.data.data(), count * 2);
        for (size_t i = 0; i < count; ++i) full[i] = half_to_float(halves[i]);
    } else {
        std::memcpy(full.data(), img.data.data(), count * 4);
        for (size_t i = 0; i < count; ++i) halves[i] = float_to_half(full[i]);
    }
    const bool half =
        opt.pixel == ExrPixel::Half || (opt.pixel == ExrPixel::Auto && (src_half || exactly_half(full.data(), count)));
    bool alpha = n == 4 && opt.channels != ExrWriteOptions::Channels::Rgb;
    if (alpha && opt.channels == ExrWriteOptions::Channels::Auto) {
        alpha = false;
        for (size_t i = 3; i < count; i += 4) alpha = alpha || full[i] != 1.0f;
    }
    return guarded("EXR", [&] {
        Imf::Header h(int(img.desc.width), int(img.desc.height));
        h.compression() = compression_of(opt.compression);
        const char* names[4] = {"R", "G", "B", "A"};
        const unsigned written = n == 1 ? 1 : alpha ? 4 : 3;
        const Imf::PixelType type = half ? Imf::HALF : Imf::FLOAT;
        for (unsigned c = 0; c < written; ++c) h.channels().insert(names[c], Imf::Channel(type));
        MemoryOut out;
        {
            Imf::OutputFile file(out, h);
            Imf::FrameBuffer fb;
            const size_t elem = half ? 2 : 4, xstride = elem * n;
            const char* base =
                half ? reinterpret_cast<const char*>(halves.data()) : reinterpret_cast<const char*>(full.data());
            for (unsigned c = 0; c < written; ++c)
                fb.insert(names[c],
                          Imf::Slice(type, const_cast<char*>(base) + c * elem, xstride, xstride * img.desc.width));
            file.setFrameBuffer(fb);
            file.writePixels(int(img.desc.height));
        }
        return std::move(out.bytes);
    });
}

} // namespace af
