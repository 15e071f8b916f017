#include "host/texture_io.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/mapped_file.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"
#include "assetforge/write_texture.hpp"
#include "core/pixel_convert.hpp"
#include "host/builtin_png.hpp"
#include "host/host_services.hpp"
#include "host/load_failures.hpp"
#include "host/plugin_notes.hpp"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace af::host {
namespace {

// Keeps the strings an af_options points at alive.
struct COptions {
    std::vector<af_kv> kv;
    af_options view{};
    explicit COptions(const OptionMap& m) {
        for (const auto& [k, v] : m) kv.push_back({k.c_str(), v.c_str()});
        view = {kv.data(), uint32_t(kv.size())};
    }
};

std::string located(const std::string& name, uint64_t offset, const std::string& msg) {
    if (offset == AF_NO_OFFSET) return name + ": " + msg;
    return name + ": offset " + std::to_string(offset) + ": " + msg;
}

[[noreturn]] void rethrow_named(const std::string& name, af_status st, const af_error& e, const LoadedPlugin* plugin) {
    // A plugin's internal error may be a library's text (`map::at`): worded for users, after the file's name.
    std::string msg = st == AF_ERR_INTERNAL ? sdk::describe_text(e.message) : std::string(e.message);
    // Which plugin said it, as its warnings say (a failure of the worker names it already).
    if (plugin && msg.find("plugin '") == std::string::npos) msg += " (plugin '" + plugin->name + "')";
    throw sdk::Error(st, located(name, e.offset, msg), e.offset);
}

// Takes ownership of a texture the plugin allocated with af_host.alloc.
Texture adopt(af_texture& t) {
    struct Free {
        af_texture& t;
        ~Free() {
            services()->free(t.data);
            services()->free(t.palette);
        }
    } guard{t};
    return sdk::import_texture(t);
}

struct VectorSink {
    std::vector<uint8_t> bytes;
    static af_status write(void* ctx, const void* data, uint64_t size) {
        auto* s = static_cast<VectorSink*>(ctx);
        const auto* p = static_cast<const uint8_t*>(data);
        s->bytes.insert(s->bytes.end(), p, p + size);
        return AF_OK;
    }
};

struct FileSink {
    sdk::AtomicFile* file;
    std::string error;
    static af_status write(void* ctx, const void* data, uint64_t size) {
        auto* s = static_cast<FileSink*>(ctx);
        try {
            s->file->write(data, size);
            return AF_OK;
        } catch (const std::exception& e) {
            s->error = sdk::describe(e);
            return AF_ERR_IO;
        }
    }
};

Found<af_container> writer_for(const PluginRegistry& reg, const std::string& container, const std::string& ext) {
    auto c = output_container(reg, container, ext);
    if (!c) {
        if (container.empty()) sdk::usage("no plugin writes '" + ext + "' files (see `assetforge plugins`)");
        sdk::usage("no container named '" + container + "' (see `assetforge plugins`)");
    }
    if (!(c.item->caps & AF_CAN_WRITE)) sdk::unsupported(std::string("container ") + c.item->name + " cannot write");
    return c;
}

// Defence in depth: plugins check limits before allocating; the host checks
// again so a plugin that forgets cannot hand a giant texture downstream.
void check_limits(const TextureDesc& d) {
    const HostSettings& s = settings();
    if (s.max_dimension && (d.width > s.max_dimension || d.height > s.max_dimension || d.depth > s.max_dimension))
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  "limit: " + std::to_string(d.width) + "x" + std::to_string(d.height) + "x" + std::to_string(d.depth) +
                      " exceeds --max-dimension " + std::to_string(s.max_dimension));
    const uint64_t surfaces = uint64_t(d.mips) * d.faces * d.layers;
    if (s.max_surfaces && surfaces > s.max_surfaces)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  "limit: " + std::to_string(surfaces) + " surfaces exceed --max-surfaces " +
                      std::to_string(s.max_surfaces));
    if (s.max_texture_bytes && texture_bytes(d) > s.max_texture_bytes)
        sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET,
                  "limit: " + std::to_string(texture_bytes(d)) + " decoded bytes exceed --max-texture-bytes " +
                      std::to_string(s.max_texture_bytes));
}

// Inside a build's action its read warnings are kept with the action (its
// terminal line and reports); elsewhere the caller prints result.warnings.
void keep_read_warnings(const std::string& name, const ReadResult& r, const LoadedPlugin* plugin) {
    for (const auto& w : r.warnings)
        keep_plugin_note(AF_LOG_WARN, read_warning_line(name, w.offset, w.message, plugin ? plugin->name : "core"));
}

} // namespace

Found<af_container> output_container(const PluginRegistry& reg, std::string_view container, std::string extension) {
    if (!container.empty()) return reg.container_by_name(container);
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    // The host's own PNG and OpenEXR writers, even where a plugin also claims the extension.
    if (extension == ".png" || extension == ".exr") return reg.container_by_name(extension.substr(1));
    return extension.empty() ? Found<af_container>{} : reg.container_for_extension(extension);
}

ReadResult read_texture_bytes(const PluginRegistry& reg, const std::string& name, std::span<const uint8_t> bytes,
                              const OptionMap& opts) {
    auto c = reg.container_for(name, bytes.data(), std::min<uint64_t>(bytes.size(), 4096), bytes.size());
    if (!c || !(c.item->caps & AF_CAN_READ))
        throw sdk::Error(AF_ERR_UNSUPPORTED,
                         name + ": unknown format (no plugin recognises its first bytes or extension)" +
                             failed_loads_note(reg));
    ReadResult result;
    result.container = c.item->name;
    af_input in{};
    sdk::init_header(in);
    in.path = name.c_str();
    in.data = bytes.data();
    in.size = bytes.size();
    in.diag_ctx = &result.warnings;
    in.warn = [](void* ctx, uint64_t off, const char* msg) {
        static_cast<std::vector<Diagnostic>*>(ctx)->push_back({off, msg ? msg : ""});
    };
    if (c.item->read == builtin_png_container().read) { // the host's own PNG reader
        try {
            result.texture = read_png_texture(services(), in);
            keep_read_warnings(name, result, c.plugin);
            check_limits(result.texture.desc);
        } catch (const sdk::Error& x) {
            throw sdk::Error(x.status(), located(name, x.offset(), x.what()), x.offset());
        }
        return result;
    }
    COptions o(opts);
    af_texture out{};
    af_error e{};
    af_status st = c.item->read(services(), &in, &o.view, &out, &e);
    keep_read_warnings(name, result, c.plugin);
    if (st != AF_OK) {
        services()->free(out.data);
        services()->free(out.palette);
        rethrow_named(name, st, e, c.plugin);
    }
    try {
        result.texture = adopt(out);
        check_limits(result.texture.desc);
    } catch (const sdk::Error& x) {
        throw sdk::Error(x.status(), name + ": " + x.what());
    }
    return result;
}

ReadResult read_texture(const PluginRegistry& reg, const std::filesystem::path& path, const OptionMap& opts) {
    sdk::MappedFile file;
    try {
        file = sdk::MappedFile(path);
    } catch (const sdk::Error& e) {
        throw sdk::Error(e.status(), path.string() + ": " + e.what());
    }
    return read_texture_bytes(reg, path.string(), file.bytes(), opts);
}

std::vector<uint8_t> encode_texture(const PluginRegistry& reg, const std::string& container, const Texture& tex,
                                    const OptionMap& opts) {
    auto c = writer_for(reg, container, "");
    VectorSink sink;
    af_sink s{&sink, VectorSink::write};
    sdk::TextureView t(tex); // metadata included: a writer can keep what the reader recorded
    COptions o(opts);
    af_error e{};
    af_status st = c.item->write(services(), t.get(), &o.view, &s, &e);
    if (st != AF_OK) rethrow_named(container, st, e, c.plugin);
    return std::move(sink.bytes);
}

void write_texture(const PluginRegistry& reg, const std::filesystem::path& path, const Texture& tex,
                   const std::string& container, const OptionMap& opts) {
    auto c = writer_for(reg, container, path.extension().string());
    sdk::AtomicFile file(path);
    FileSink sink{&file, {}};
    af_sink s{&sink, FileSink::write};
    sdk::TextureView t(tex); // metadata included: a writer can keep what the reader recorded
    COptions o(opts);
    af_error e{};
    af_status st = c.item->write(services(), t.get(), &o.view, &s, &e);
    if (st != AF_OK) {
        if (!sink.error.empty()) throw sdk::Error(AF_ERR_IO, sink.error);
        rethrow_named(path.string(), st, e, c.plugin);
    }
    file.commit();
}

Texture decode_surface(const PluginRegistry& reg, const Texture& tex, uint32_t layer, uint32_t face, uint32_t mip,
                       const OptionMap& opts) {
    const FormatInfo* f = format_info(tex.desc.format);
    if (!f) sdk::unsupported("format id " + std::to_string(tex.desc.format));
    ImageView s = tex.surface(layer, face, mip);
    const uint32_t rows = s.height * s.depth; // volume slices stacked vertically
    const bool srgb = f->srgb() || (tex.desc.flags & AF_TEX_SRGB);
    if (!f->compressed()) {
        Texture img = surface_to_image(tex.desc.format, s.data, s.size, s.width, rows,
                                       tex.palette.empty() ? nullptr : tex.palette.data() + size_t(layer) * 1024);
        set_srgb(img, srgb);
        return img;
    }
    const bool wide = f->decodes_to_float();
    Texture img = wide ? rgba32f_picture(s.width, rows, srgb) : rgba8_picture(s.width, rows, srgb);
    const af_surface src = s.abi();
    af_surface dst{wide ? uint32_t(FMT_R32G32B32A32_FLOAT)
                        : uint32_t(f->srgb() ? FMT_R8G8B8A8_UNORM_SRGB : FMT_R8G8B8A8_UNORM),
                   s.width,
                   s.height,
                   s.depth,
                   wide ? reinterpret_cast<uint8_t*>(floats(img).data()) : img.data.data(),
                   wide ? floats(img).size() * sizeof(float) : img.data.size()};
    COptions o(opts);
    convert_surface(&reg, src, dst, &o.view);
    return img;
}

Texture convert_texture(const PluginRegistry& reg, const Texture& tex, uint32_t format, const OptionMap& opts) {
    if (!format_info(format)) sdk::unsupported("format id " + std::to_string(format));
    if (format == FMT_P8) sdk::unsupported("converting to P8 needs a palette: use the XTF writer's P8 path");
    TextureDesc d = tex.desc;
    d.format = format;
    Texture out(d);
    out.meta = tex.meta;
    const FormatInfo* src_f = format_info(tex.desc.format);
    COptions o(opts);
    for (uint32_t l = 0; l < d.layers; ++l)
        for (uint32_t f = 0; f < d.faces; ++f)
            for (uint32_t m = 0; m < d.mips; ++m) {
                ImageView in = tex.surface(l, f, m);
                ImageView dst = out.surface(l, f, m);
                if (src_f && src_f->layout == Layout::Palette) {
                    // Expand through the layer's palette first; the host service has no palette.
                    std::vector<float> px(uint64_t(in.width) * in.height * in.depth * 4);
                    decode_texels(tex.desc.format, in.data, in.size, in.width, in.height * in.depth, px.data(),
                                  tex.palette.data() + size_t(l) * 1024);
                    af_surface s{
                        FMT_R32G32B32A32_FLOAT,   in.width, in.height, in.depth, reinterpret_cast<uint8_t*>(px.data()),
                        px.size() * sizeof(float)};
                    af_surface t = dst.abi();
                    convert_surface(&reg, s, t, &o.view);
                    continue;
                }
                af_surface t = dst.abi();
                convert_surface(&reg, in.abi(), t, &o.view);
            }
    return out;
}

} // namespace af::host
