#include "engine/action_memory.hpp"

#include "assetforge/formats.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <vector>

namespace af::engine {
namespace {

// Peak bytes per texel of what the engine itself does around the steps (the
// steps' own figures are beside them: StepDef::memory). "narrow": 8-bit
// channels; "wide": 16-bit or float ones (or a container whose header is not
// read). Fitted to peaks measured by bench/memory_peaks.py (random texels with
// alpha, the costliest content for mips) and rounded up, so every chain it
// runs is estimated at or above what it held; docs/memory.md has the figures.
constexpr steps::TexelCost kRead{14,
                                 36}; // the container's reader: decoded pixels plus the copies across the plugin ABI
constexpr steps::TexelCost kOtherStep{64,
                                      112}; // a plugin's or test's texture step: as much as the costliest built-in one
constexpr steps::TexelCost kWritePng{28,
                                     64}; // the implicit write to PNG: surface image, 8/16-bit rows, compressed bytes
constexpr steps::TexelCost kWriteOther{12, 36}; // the implicit write to any other container
// A step that takes bytes and declares no cost (a plugin stage such as
// pages.extract or xtf's swizzle) may emit anything: 16 times the file, the budget's rule
// before headers were read. pages.extract holds about 1x the file in
// payloads or blocks; with what=pixels a BC1 page becomes RGBA8, 8x.
constexpr double kByteStageFactor = 16;
// A file whose header is not read holds at least 4 bits per texel (BC1, BC4).
constexpr double kTexelsPerByte = 2;
// Per action: the action's records, codec state, libpng and zlib buffers.
constexpr uint64_t kPerAction = 4u << 20;

uint32_t be32(const uint8_t* p) { return uint32_t(p[0]) << 24 | uint32_t(p[1]) << 16 | uint32_t(p[2]) << 8 | p[3]; }
uint32_t le32(const uint8_t* p) { return uint32_t(p[3]) << 24 | uint32_t(p[2]) << 16 | uint32_t(p[1]) << 8 | p[0]; }

// What a file declares in its first bytes.
struct Declared {
    uint64_t file_bytes = 0;
    bool known = false; // the header was understood
    double texels = 0;  // top-level texels of every face, layer and slice
    uint32_t width = 0, height = 0;
    bool mipped = false;
    bool wide = true;
    std::string what; // "20000x20000 16-bit RGBA PNG"
};

constexpr size_t kHeadBytes = 148;             // a DDS header with its DX10 extension; a PNG's IHDR ends at 33
constexpr size_t kPluginHeadBytes = 64u << 10; // what a container plugin's dims is given (host/declared_dims.hpp)

bool read_png_header(const uint8_t* b, size_t n, Declared& d) {
    static const uint8_t sig[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    if (n < 33 || memcmp(b, sig, 8) != 0 || memcmp(b + 12, "IHDR", 4) != 0) return false;
    d.width = be32(b + 16);
    d.height = be32(b + 20);
    const int depth = b[24], ctype = b[25];
    static const char* types[] = {"grey", "?", "RGB", "palette", "grey+alpha", "?", "RGBA"};
    d.texels = double(d.width) * d.height;
    d.wide = depth > 8;
    d.what = std::to_string(d.width) + "x" + std::to_string(d.height) + " " + std::to_string(depth) + "-bit " +
             (ctype < 7 ? types[ctype] : "?") + " PNG";
    return d.width && d.height;
}

bool read_dds_header(const uint8_t* b, size_t n, Declared& d) {
    if (n < 128 || memcmp(b, "DDS ", 4) != 0) return false;
    constexpr uint32_t kDepthFlag = 0x800000, kCube = 0x200, kVolume = 0x200000, kMiscCube = 0x4;
    d.height = le32(b + 12);
    d.width = le32(b + 16);
    const uint32_t flags = le32(b + 8), caps2 = le32(b + 112), fourcc = le32(b + 84), bits = le32(b + 88);
    double depth = (flags & kDepthFlag) || (caps2 & kVolume) ? std::max<uint32_t>(1, le32(b + 24)) : 1;
    double faces = caps2 & kCube ? 6 : 1, layers = 1;
    d.mipped = le32(b + 28) > 1;
    if (fourcc == 0x30315844 /* "DX10" */) {
        if (n < 148) return false;
        const FormatInfo* fi = format_info(le32(b + 128));
        d.wide = !fi || (fi->flags & fmtflag::hdr) || (fi->layout == Layout::Plain && fi->bits_per_texel() > 32);
        if (le32(b + 136) & kMiscCube) faces = 6;
        layers = std::max<uint32_t>(1, le32(b + 140));
    } else {
        // D3DFMT codes 36 and 110..116 are the 16-bit and float formats.
        d.wide = fourcc == 36 || (fourcc >= 110 && fourcc <= 116) || bits > 32;
    }
    d.texels = double(d.width) * d.height * depth * faces * layers;
    d.what = std::to_string(d.width) + "x" + std::to_string(d.height) + " DDS";
    if (depth * faces * layers > 1) d.what += " of " + std::to_string(uint64_t(depth * faces * layers)) + " surfaces";
    return d.width && d.height;
}

std::string size_text(double bytes) {
    char buf[32];
    if (bytes >= double(1ull << 30))
        snprintf(buf, sizeof buf, "%.1f GiB", bytes / double(1ull << 30));
    else
        snprintf(buf, sizeof buf, "%.0f MiB", std::ceil(bytes / double(1u << 20)));
    return buf;
}

// What a plugin's container declared for the file, as for a DDS of that format.
bool plugin_header(const steps::DeclaredTexture& t, Declared& d) {
    const TextureDesc& x = t.desc;
    if (!x.width || !x.height) return false;
    d.width = x.width;
    d.height = x.height;
    const double surfaces = double(std::max(1u, x.depth)) * std::max(1u, x.faces) * std::max(1u, x.layers);
    d.texels = double(d.width) * d.height * surfaces;
    d.mipped = x.mips > 1;
    const FormatInfo* fi = format_info(x.format);
    d.wide = !fi || (fi->flags & fmtflag::hdr) || (fi->layout == Layout::Plain && fi->bits_per_texel() > 32);
    d.what = std::to_string(d.width) + "x" + std::to_string(d.height) + " " + t.container;
    if (surfaces > 1) d.what += " of " + std::to_string(uint64_t(surfaces)) + " surfaces";
    d.what += ", as its header declares";
    return true;
}

Declared declared(const std::string& path, const steps::DeclaredReader& plugin_declared) {
    Declared d;
    int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return d; // reading it fails next, with its own message
    struct stat st {};
    uint8_t head[kHeadBytes];
    ssize_t n = ::fstat(fd, &st) == 0 ? ::pread(fd, head, sizeof head, 0) : -1;
    if (n < 0) {
        ::close(fd);
        return d;
    }
    d.file_bytes = uint64_t(st.st_size);
    d.known = read_png_header(head, size_t(n), d) || read_dds_header(head, size_t(n), d);
    if (!d.known && plugin_declared) {
        std::vector<uint8_t> more(std::min<uint64_t>(kPluginHeadBytes, d.file_bytes));
        const ssize_t m = more.empty() ? 0 : ::pread(fd, more.data(), more.size(), 0);
        if (m >= 0) {
            more.resize(size_t(m));
            if (auto t = plugin_declared(path, more)) d.known = plugin_header(*t, d);
        }
    }
    ::close(fd);
    if (!d.known) {
        d = Declared{};
        d.file_bytes = uint64_t(st.st_size);
        d.what = size_text(double(d.file_bytes)) + " file";
    }
    return d;
}

// The peak of one file's steps (beyond kPerAction), and in `f` what comes out.
double chain_peak(const load::Job& job, const Declared& d, steps::MemoryFlow& f) {
    const double file = double(d.file_bytes);
    double peak = file;
    f.as_texture = [&] {
        if (f.texture) return;
        f.texture = true;
        if (d.known && f.bytes == file) {
            f.top = d.texels;
            f.texels = d.texels * (d.mipped ? 4.0 / 3 : 1);
            f.width = d.width;
            f.height = d.height;
            f.wide = d.wide;
        } else {
            f.top = f.texels = f.bytes * kTexelsPerByte;
            f.wide = true;
        }
        peak = std::max(peak, file + kRead.of(f, f.texels));
    };
    for (const auto& s : job.steps) {
        if (s.def && s.def->memory) {
            const double held = s.def->memory(s.params, f);
            peak = std::max(peak, file + held);
        } else if (s.def && s.def->takes_texture) {
            f.as_texture();
            peak = std::max(peak, file + kOtherStep.of(f, f.texels));
        } else if (f.texture) {
            peak = std::max(peak, file + kOtherStep.of(f, f.texels));
        } else {
            f.bytes *= kByteStageFactor;
            peak = std::max(peak, f.bytes);
        }
    }
    if (f.texture) {
        std::string ext = std::filesystem::path(job.output).extension().string();
        std::transform(ext.begin(), ext.end(), ext.begin(), ::tolower);
        peak = std::max(peak, file + (ext == ".png" ? kWritePng : kWriteOther).of(f, f.texels));
    }
    f.as_texture = nullptr;
    return peak;
}

} // namespace

MemoryEstimate estimate_action_memory(const load::Job& job, const std::vector<ActionFile>& files,
                                      const steps::DeclaredReader& plugin_declared) {
    MemoryEstimate e;
    double total = kPerAction, largest = -1, gathered = 0;
    if (job.gathers_files()) { // no file is read before the step streams it: nothing to probe
        steps::MemoryFlow all;
        all.count = double(files.size());
        total += job.gather.def->memory ? job.gather.def->memory(job.gather.params, all) : 0;
        e.bytes = uint64_t(total);
        e.largest = files.empty() ? "no input" : files.front().name;
        return e;
    }
    for (const auto& file : files) {
        Declared d = declared(file.path, plugin_declared);
        steps::MemoryFlow f;
        f.bytes = double(d.file_bytes);
        double peak = chain_peak(job, d, f);
        // A gather holds every file's items at once, then what its step makes of them.
        gathered += f.texture ? f.texels * 16 : f.bytes;
        total += peak;
        if (peak > largest) {
            largest = peak;
            e.largest = file.name + " (" + d.what + ")";
        }
    }
    if (job.is_gather()) {
        steps::MemoryFlow all;
        all.bytes = gathered;
        all.count = double(files.size());
        total += job.gather.def && job.gather.def->memory ? job.gather.def->memory(job.gather.params, all)
                                                          : gathered * kByteStageFactor;
    }
    e.bytes = total >= 1.8e19 ? UINT64_MAX : uint64_t(total);
    return e;
}

uint64_t action_memory_within(const load::Job& job, const std::vector<ActionFile>& files, uint64_t budget,
                              const steps::DeclaredReader& plugin_declared) {
    MemoryEstimate e = estimate_action_memory(job, files, plugin_declared);
    if (e.bytes > budget)
        throw std::runtime_error((files.size() > 1 ? std::to_string(files.size()) + " inputs, the largest " : "") +
                                 e.largest + ": this action needs an estimated " + size_text(double(e.bytes)) +
                                 ", more than the whole memory budget of " + size_text(double(budget)) +
                                 "; raise --memory-budget");
    return e.bytes;
}

} // namespace af::engine
