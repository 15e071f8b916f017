#include "host/host_services.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"
#include "core/image_ops.hpp"
#include "core/pixel_convert.hpp"
#include "host/builtin_png.hpp"
#include "host/isolation/crash_handler.hpp"
#include "host/isolation/shared_memory.hpp"
#include "host/plugin_notes.hpp"
#include "host/plugin_registry.hpp"
#include "host/read_allowance.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <malloc.h>
#include <mutex>
#include <string>
#include <vector>

namespace af::host {
namespace {

const PluginRegistry* g_registry = nullptr;
std::atomic<bool> g_cancel{false};
std::mutex g_log_mutex;

// Inside a read whose container declared dims, what the read holds is counted
// against them (read_allowance.hpp); the usable size, so free gives back what alloc took.
void* svc_alloc(uint64_t size) {
    const uint64_t limit = settings().max_texture_bytes;
    if (limit && size > limit) return nullptr;
    void* p = std::malloc(size ? size : 1);
    if (p && current_allowance() && !allowance_take(malloc_usable_size(p), size ? size : 1)) {
        std::free(p);
        return nullptr;
    }
    return p;
}

// Texture data from a plugin worker arrives as shared memory the host maps.
void svc_free(void* p) {
    if (isolation::release_shared(p)) return;
    if (p && current_allowance()) allowance_give(malloc_usable_size(p));
    std::free(p);
}

// A line from a plugin running in process names the file of the call it is in,
// and the plugin (a worker's lines arrive already named). Inside a build's
// action the line is kept with the action: its warnings are printed with the
// action's result and go into every report, so they are not printed here too.
void svc_log(int32_t level, const char* msg) {
    static const char* names[] = {"debug", "info", "warning", "error"};
    if (level < AF_LOG_INFO && !std::getenv("ASSETFORGE_DEBUG")) return;
    const isolation::PluginCall call = isolation::current_call();
    // A plugin's text is shown escaped: it could move the cursor or forge a line of the build's own.
    std::string line = sdk::printable(msg ? msg : "");
    if (call.plugin) {
        const std::string file = call.input ? std::string(call.input) : current_note_file();
        line = (file.empty() ? std::string() : file + ": ") + line + " (plugin '" + call.plugin + "')";
    }
    const NoteFate fate = keep_plugin_note(level, line);
    if (fate == NoteFate::Omitted || (fate == NoteFate::Kept && level >= AF_LOG_WARN)) return;
    std::lock_guard lock(g_log_mutex);
    std::fprintf(stderr, "assetforge: %s: %s\n", names[level < 0 ? 0 : level > 3 ? 3 : level], line.c_str());
}

int32_t svc_cancelled() { return g_cancel.load(std::memory_order_relaxed) ? 1 : 0; }

void svc_progress(uint64_t, uint64_t) {}

// Once cancelled, sub-ranges not yet started are skipped: a plugin stops
// within one grain of work instead of finishing the whole loop.
// The arena's threads work for the calling plugin call: they name its file in
// log lines, keep its notes and count against its read allowance.
void svc_parallel_for(uint64_t begin, uint64_t end, uint64_t grain, af_range_fn fn, void* ctx) {
    if (begin >= end || svc_cancelled()) return;
    const isolation::PluginCall call = isolation::current_call();
    PluginNotes* notes = current_notes();
    AllowanceScope* allowance = current_allowance();
    auto chunk = [&](uint64_t b, uint64_t e) {
        isolation::CallScope scope(call.plugin, call.call, call.input, call.remedy);
        PluginNotesScope kept(notes);
        AllowanceShare counted(allowance);
        if (!svc_cancelled()) fn(ctx, b, e);
    };
#if defined(AF_TSAN)
    // On the calling thread under ThreadSanitizer, as the engine's parallel_indices: libtbb is not instrumented,
    // and the reuse of its task objects was reported as a race on their vptr (scripts/tsan.supp).
    (void)grain;
    chunk(begin, end);
#else
    tbb::parallel_for(tbb::blocked_range<uint64_t>(begin, end, grain ? grain : 1),
                      [&](const tbb::blocked_range<uint64_t>& r) { chunk(r.begin(), r.end()); });
#endif
}

bool is_codec_output(uint32_t f) {
    return f == FMT_R8G8B8A8_UNORM || f == FMT_R8G8B8A8_UNORM_SRGB || f == FMT_R16G16B16A16_FLOAT ||
           f == FMT_R32G32B32A32_FLOAT;
}

// Decodes one 2-D slice of `src` into RGBA32F through a codec or the core.
std::vector<float> slice_to_float(const PluginRegistry* reg, const af_surface& s, const uint8_t* data, uint64_t size,
                                  const af_options* opts) {
    std::vector<float> px(uint64_t(s.width) * s.height * 4);
    const FormatInfo* f = format_info(s.format);
    if (f && f->compressed()) {
        auto codec = reg ? reg->codec_for(s.format) : Found<af_codec>{};
        if (!codec || !codec.item->decode)
            sdk::unsupported(std::string("no codec plugin decodes ") + std::string(f->name));
        af_surface in{s.format, s.width, s.height, 1, const_cast<uint8_t*>(data), size};
        af_surface out{FMT_R32G32B32A32_FLOAT,   s.width, s.height, 1, reinterpret_cast<uint8_t*>(px.data()),
                       px.size() * sizeof(float)};
        af_error e{};
        af_status st = codec.item->decode(services(), &in, &out, opts, &e);
        if (st != AF_OK) sdk::fail(st, e.offset, e.message);
    } else {
        decode_texels(s.format, data, size, s.width, s.height, px.data());
    }
    return px;
}

void float_to_slice(const PluginRegistry* reg, const std::vector<float>& px, const af_surface& d, uint8_t* data,
                    uint64_t size, const af_options* opts) {
    const FormatInfo* f = format_info(d.format);
    if (f && f->compressed()) {
        auto codec = reg ? reg->codec_for(d.format) : Found<af_codec>{};
        if (!codec || !codec.item->encode)
            sdk::unsupported(std::string("no codec plugin encodes ") + std::string(f->name));
        // Host floats hold stored values (sRGB-encoded for sRGB data), while a
        // codec reads float input as linear light. For 8-bit block formats hand
        // the codec the stored bytes, so sRGB data is not encoded twice.
        const bool ldr = !(f->flags & fmtflag::hdr) && !f->is_signed();
        std::vector<uint8_t> px8;
        af_surface in{FMT_R32G32B32A32_FLOAT,
                      d.width,
                      d.height,
                      1,
                      const_cast<uint8_t*>(reinterpret_cast<const uint8_t*>(px.data())),
                      px.size() * sizeof(float)};
        if (ldr) {
            px8.resize(px.size());
            for (size_t i = 0; i < px.size(); ++i) {
                float v = std::isnan(px[i]) ? 0.0f : std::clamp(px[i], 0.0f, 1.0f);
                px8[i] = uint8_t(std::lround(v * 255.0f));
            }
            in = {f->srgb() ? uint32_t(FMT_R8G8B8A8_UNORM_SRGB) : uint32_t(FMT_R8G8B8A8_UNORM),
                  d.width,
                  d.height,
                  1,
                  px8.data(),
                  px8.size()};
        }
        af_surface out{d.format, d.width, d.height, 1, data, size};
        af_error e{};
        af_status st = codec.item->encode(services(), &in, &out, opts, &e);
        if (st != AF_OK) sdk::fail(st, e.offset, e.message);
    } else {
        encode_texels(d.format, px.data(), d.width, d.height, data, size);
    }
}

} // namespace

void convert_surface(const af_surface& src, af_surface& dst, const af_options* opts) {
    convert_surface(g_registry, src, dst, opts);
}

void convert_surface(const PluginRegistry* reg, const af_surface& src_ref, af_surface& dst_ref,
                     const af_options* opts) {
    const af_surface* src = &src_ref;
    af_surface* dst = &dst_ref;
    if (src->width != dst->width || src->height != dst->height ||
        (src->depth ? src->depth : 1) != (dst->depth ? dst->depth : 1))
        sdk::usage("convert: source and destination sizes differ");
    const uint32_t depth = src->depth ? src->depth : 1;
    const uint64_t in_slice = surface_bytes(src->format, src->width, src->height);
    const uint64_t out_slice = surface_bytes(dst->format, dst->width, dst->height);
    if (!in_slice || !out_slice) sdk::unsupported("convert: unknown format id");
    if (src->size < in_slice * depth) sdk::invalid(src->size, "convert: source holds fewer bytes than its size needs");
    if (dst->size < out_slice * depth) sdk::usage("convert: destination buffer too small");
    for (uint32_t z = 0; z < depth; ++z) {
        const uint8_t* in = src->data + in_slice * z;
        uint8_t* out = dst->data + out_slice * z;
        if (src->format == dst->format) {
            std::memcpy(out, in, in_slice);
            continue;
        }
        // A codec decoding straight into a format it produces saves a pass.
        const FormatInfo* sf = format_info(src->format);
        if (sf && sf->compressed() && is_codec_output(dst->format) && reg) {
            if (auto codec = reg->codec_for(src->format); codec && codec.item->decode) {
                af_surface i{src->format, src->width, src->height, 1, const_cast<uint8_t*>(in), in_slice};
                af_surface o{dst->format, dst->width, dst->height, 1, out, out_slice};
                af_error e{};
                af_status st = codec.item->decode(services(), &i, &o, opts, &e);
                if (st != AF_OK) sdk::fail(st, e.offset, e.message);
                continue;
            }
        }
        // RGBA8 goes into an 8-bit block codec as it is: no float round trip.
        // The codec reads the bytes with the destination's colour tag (a tag,
        // not a conversion: stored values never change between twins).
        const FormatInfo* df = format_info(dst->format);
        if (df && df->compressed() && !(df->flags & fmtflag::hdr) && !df->is_signed() &&
            with_srgb(src->format, false) == FMT_R8G8B8A8_UNORM && reg) {
            if (auto codec = reg->codec_for(dst->format); codec && codec.item->encode) {
                af_surface i{with_srgb(FMT_R8G8B8A8_UNORM, df->srgb()),
                             src->width,
                             src->height,
                             1,
                             const_cast<uint8_t*>(in),
                             in_slice};
                af_surface o{dst->format, dst->width, dst->height, 1, out, out_slice};
                af_error e{};
                af_status st = codec.item->encode(services(), &i, &o, opts, &e);
                if (st != AF_OK) sdk::fail(st, e.offset, e.message);
                continue;
            }
        }
        af_surface s{src->format, src->width, src->height, 1, nullptr, 0};
        auto px = slice_to_float(reg, s, in, in_slice, opts);
        af_surface d{dst->format, dst->width, dst->height, 1, nullptr, 0};
        float_to_slice(reg, px, d, out, out_slice, opts);
    }
}

namespace {

af_status svc_convert(const af_surface* src, af_surface* dst, const af_options* opts, af_error* err) {
    return sdk::guard(err, [&] {
        if (!src || !dst) sdk::usage("convert: NULL surface");
        convert_surface(*src, *dst, opts);
    });
}

Filter filter_of(uint32_t f) {
    switch (f) {
    case AF_FILTER_KAISER:
        return Filter::Kaiser;
    case AF_FILTER_BOX:
        return Filter::Box;
    case AF_FILTER_TRIANGLE:
        return Filter::Triangle;
    case AF_FILTER_LANCZOS3:
        return Filter::Lanczos3;
    case AF_FILTER_MITCHELL:
        return Filter::Mitchell;
    case AF_FILTER_POINT:
        return Filter::Point;
    }
    sdk::usage(sdk::format("resample: unknown filter %u", f));
}

af_status svc_resample(const af_surface* src, af_surface* dst, const af_resample_options* options, af_error* err) {
    return sdk::guard(err, [&] {
        if (!src || !dst) sdk::usage("resample: NULL surface");
        const af_resample_options o = options ? sdk::read_table<af_resample_options>(options) : [] {
            af_resample_options d{};
            d.flags = AF_RESAMPLE_LINEAR_LIGHT | AF_RESAMPLE_PREMULTIPLIED_ALPHA;
            return d;
        }();
        const uint32_t f = src->format;
        const bool is8 = f == FMT_R8G8B8A8_UNORM || f == FMT_R8G8B8A8_UNORM_SRGB;
        if (!is8 && f != FMT_R32G32B32A32_FLOAT)
            sdk::unsupported("resample takes R8G8B8A8_UNORM(_SRGB) or R32G32B32A32_FLOAT surfaces");
        if (dst->format != f) sdk::usage("resample: source and destination formats differ");
        if (src->depth > 1 || dst->depth > 1) sdk::unsupported("resample: volume surfaces");
        if (!src->width || !src->height || !dst->width || !dst->height) sdk::usage("resample: empty surface");
        const uint32_t limit = settings().max_dimension;
        if (limit && (dst->width > limit || dst->height > limit))
            sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                      sdk::format("limit: %ux%u exceeds --max-dimension %u", dst->width, dst->height, limit));
        const uint64_t bpp = is8 ? 4 : 16;
        if (src->size < uint64_t(src->width) * src->height * bpp)
            sdk::invalid(src->size, "resample: source holds fewer bytes than its size needs");
        if (dst->size < uint64_t(dst->width) * dst->height * bpp) sdk::usage("resample: destination buffer too small");
        const bool srgb = f == FMT_R8G8B8A8_UNORM_SRGB || (o.flags & AF_RESAMPLE_SRGB);
        Texture in =
            is8 ? rgba8_picture(src->width, src->height, srgb) : rgba32f_picture(src->width, src->height, srgb);
        if (is8)
            std::memcpy(in.data.data(), src->data, in.data.size());
        else
            std::memcpy(floats(in).data(), src->data, floats(in).size() * sizeof(float));
        ResizeOptions ro;
        ro.filter = filter_of(o.filter);
        if (o.edge > AF_EDGE_WRAP) sdk::usage(sdk::format("resample: unknown edge mode %u", o.edge));
        ro.edge = o.edge == AF_EDGE_WRAP ? Edge::Wrap : Edge::Clamp;
        ro.linear_light = o.flags & AF_RESAMPLE_LINEAR_LIGHT;
        ro.premultiply_alpha = o.flags & AF_RESAMPLE_PREMULTIPLIED_ALPHA;
        Texture out = resize(in, dst->width, dst->height, ro);
        if (is8)
            std::memcpy(dst->data, out.data.data(), out.data.size());
        else
            std::memcpy(dst->data, floats(out).data(), floats(out).size() * sizeof(float));
    });
}

af_status svc_write_texture(const char* name, const af_texture* tex, const af_options* options, af_sink* out,
                            af_error* err) {
    return sdk::guard(err, [&] {
        if (!name || !tex || !out || !out->write) sdk::usage("write_texture: missing container, texture or sink");
        // Without a registry (a plugin's unit tests) the built-in PNG writer still answers.
        static const af_container png = builtin_png_container();
        const af_container* c = g_registry                           ? g_registry->container_by_name(name).item
                                : std::string_view(name) == png.name ? &png
                                                                     : nullptr;
        if (!c) sdk::usage(sdk::format("write_texture: no container named '%s'", name));
        if (!(c->caps & AF_CAN_WRITE) || !c->write) sdk::unsupported(sdk::format("container %s cannot write", name));
        af_error e{};
        af_status st = c->write(services(), tex, options, out, &e);
        if (st != AF_OK) sdk::fail(st, e.offset, e.message);
    });
}

af_host make_services() {
    af_host h{};
    sdk::init_header(h);
    h.host_version = AF_HOST_VERSION;
    h.alloc = svc_alloc;
    h.free = svc_free;
    h.log = svc_log;
    h.cancelled = svc_cancelled;
    h.progress = svc_progress;
    h.parallel_for = svc_parallel_for;
    h.convert = svc_convert;
    h.resample = svc_resample;
    h.write_texture = svc_write_texture;
    return h;
}

af_host g_services = make_services();

} // namespace

HostSettings& settings() {
    static HostSettings s;
    return s;
}

const af_host* services() {
    g_services.max_texture_bytes = settings().max_texture_bytes;
    g_services.max_dimension = settings().max_dimension;
    g_services.max_surfaces = settings().max_surfaces;
    g_services.max_items = settings().max_items;
    return &g_services;
}

af_host& service_table() { return g_services; }

void set_registry(const PluginRegistry* r) { g_registry = r; }
const PluginRegistry* registry() { return g_registry; }
void request_cancel() { g_cancel.store(true); }
bool cancel_requested() { return g_cancel.load(); }
void clear_cancel() { g_cancel.store(false); }

} // namespace af::host
