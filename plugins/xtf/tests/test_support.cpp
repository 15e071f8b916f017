#include "test_support.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/testing/fake_host.hpp"
#include "core/image_ops.hpp"
#include "core/pixel_convert.hpp"

#include <dlfcn.h>
#include <nlohmann/json.hpp>
#include <openssl/evp.h>

#include <cstdlib>
#include <fstream>
#include <thread>

namespace xtftest {

namespace fs = std::filesystem;

fs::path data_dir() { return XTF_TEST_DATA; }

std::vector<uint8_t> read_bytes(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + p.string());
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

std::vector<std::string> fixture_names() {
    auto b = read_bytes(data_dir() / "index.json");
    std::vector<std::string> out;
    for (auto& e : nlohmann::json::parse(b.begin(), b.end())) out.push_back(e["name"]);
    return out;
}

std::string sha256(const uint8_t* p, size_t n) {
    unsigned char md[EVP_MAX_MD_SIZE];
    unsigned int len = 0;
    if (!EVP_Digest(p, n, md, &len, EVP_sha256(), nullptr)) throw std::runtime_error("EVP_Digest failed");
    static const char* hex = "0123456789abcdef";
    std::string s;
    for (unsigned i = 0; i < len; ++i) {
        s += hex[md[i] >> 4];
        s += hex[md[i] & 15];
    }
    return s;
}

namespace {

const af_codec* g_bc = nullptr;
bool g_bc_tried = false;

af::sdk::testing::FakeHost& fake();

const af_codec* bc_codec(uint32_t format) {
    if (!g_bc_tried) {
        g_bc_tried = true;
        fs::path so = fs::path(XTF_PLUGIN_DIR) / "af_bc.so";
        if (void* lib = fs::exists(so) ? dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL) : nullptr) {
            auto entry = reinterpret_cast<af_plugin_entry_fn>(dlsym(lib, AF_ENTRY_SYMBOL));
            const af_plugin* p = entry ? entry(fake().get()) : nullptr;
            for (uint32_t i = 0; p && i < p->codec_count; ++i)
                if (p->codecs[i]) g_bc = p->codecs[i];
        }
    }
    if (!g_bc) return nullptr;
    for (uint32_t i = 0; i < g_bc->format_count; ++i)
        if (g_bc->formats[i] == format) return g_bc;
    return nullptr;
}

af_status convert(const af_surface* src, af_surface* dst, const af_options* opts, af_error* err) {
    return af::sdk::guard(err, [&] {
        const auto* si = af::format_info(src->format);
        const auto* di = af::format_info(dst->format);
        if (!si || !di) af::sdk::unsupported("unknown format");
        const uint64_t texels = uint64_t(src->width) * src->height * src->depth;
        std::vector<float> rgba(texels * 4);
        // The texels between the two formats: RGBA float, src's size.
        auto float_rgba = [&] {
            return af_surface{af::FMT_R32G32B32A32_FLOAT,
                              src->width,
                              src->height,
                              src->depth,
                              reinterpret_cast<uint8_t*>(rgba.data()),
                              rgba.size() * 4};
        };
        auto codec_of = [](uint32_t format, const af::FormatInfo& info) {
            const af_codec* c = bc_codec(format);
            if (!c) af::sdk::unsupported("no codec for " + std::string(info.name));
            return c;
        };
        if (si->compressed()) {
            const af_codec* c = codec_of(src->format, *si);
            af_surface tmp = float_rgba();
            if (auto s = c->decode(fake().get(), src, &tmp, opts, err); s != AF_OK)
                throw af::sdk::Error(s, err->message, err->offset);
        } else {
            af::decode_texels(src->format, src->data, src->size, src->width, src->height * src->depth, rgba.data());
        }
        if (di->compressed()) {
            const af_codec* c = codec_of(dst->format, *di);
            af_surface tmp = float_rgba();
            if (auto s = c->encode(fake().get(), &tmp, dst, opts, err); s != AF_OK)
                throw af::sdk::Error(s, err->message, err->offset);
        } else {
            af::encode_texels(dst->format, rgba.data(), dst->width, dst->height * dst->depth, dst->data, dst->size);
        }
    });
}

// What the host's resample service does: the core's resize with the table's options.
af_status resample(const af_surface* src, af_surface* dst, const af_resample_options* o, af_error* err) {
    return af::sdk::guard(err, [&] {
        const bool is8 = src->format != af::FMT_R32G32B32A32_FLOAT;
        const bool srgb = src->format == af::FMT_R8G8B8A8_UNORM_SRGB || (o && (o->flags & AF_RESAMPLE_SRGB));
        af::Texture in =
            is8 ? af::rgba8_picture(src->width, src->height, srgb) : af::rgba32f_picture(src->width, src->height, srgb);
        std::memcpy(in.data.data(), src->data, in.data.size());
        af::ResizeOptions ro;
        if (o) {
            static constexpr af::Filter kFilters[] = {af::Filter::Kaiser,   af::Filter::Box,      af::Filter::Triangle,
                                                      af::Filter::Lanczos3, af::Filter::Mitchell, af::Filter::Point};
            ro.filter = kFilters[o->filter];
            ro.edge = o->edge == AF_EDGE_WRAP ? af::Edge::Wrap : af::Edge::Clamp;
            ro.linear_light = o->flags & AF_RESAMPLE_LINEAR_LIGHT;
            ro.premultiply_alpha = o->flags & AF_RESAMPLE_PREMULTIPLIED_ALPHA;
        }
        const af::Texture out = af::resize(in, dst->width, dst->height, ro);
        std::memcpy(dst->data, out.data.data(), out.data.size());
    });
}

// One host for every test (the plugin under test keeps the table it was
// loaded with): convert through the core and af_bc, resample through the core.
af::sdk::testing::FakeHost& fake() {
    static af::sdk::testing::FakeHost h;
    static const bool wired = [] {
        h.on_convert = convert;
        h.on_resample = resample;
        h.table().max_texture_bytes = 1ull << 32;
        h.table().max_dimension = 65536;
        h.table().max_surfaces = 1u << 20;
        return true;
    }();
    (void)wired;
    return h;
}

} // namespace

const af_host* host(bool threaded) {
    af::sdk::testing::FakeHost& h = fake();
    h.set_threads(threaded ? std::max(2u, std::thread::hardware_concurrency()) : 0);
    return h.get();
}

bool bc_codec_available() {
    host();
    return bc_codec(af::FMT_BC1_UNORM) != nullptr;
}

const af_plugin* xtf_plugin() {
    static const af_plugin* p = [] {
        const std::string so = std::string(XTF_PLUGIN_DIR) + "/af_xtf.so";
        void* lib = dlopen(so.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!lib) throw std::runtime_error("cannot load " + so);
        auto entry = reinterpret_cast<af_plugin_entry_fn>(dlsym(lib, AF_ENTRY_SYMBOL));
        return entry(host());
    }();
    return p;
}

af_input input_of(const std::vector<uint8_t>& b, const char* path) {
    af_input in{};
    af::sdk::init_header(in);
    in.path = path;
    in.data = b.data();
    in.size = b.size();
    return in;
}

const af_container* container(const char* name) {
    for (uint32_t i = 0; i < xtf_plugin()->container_count; ++i)
        if (std::string(xtf_plugin()->containers[i]->name) == name) return xtf_plugin()->containers[i];
    return nullptr;
}

const af_stage* stage(const char* name) {
    for (uint32_t i = 0; i < xtf_plugin()->stage_count; ++i)
        if (std::string(xtf_plugin()->stages[i]->name) == name) return xtf_plugin()->stages[i];
    return nullptr;
}

af::Texture surface_rgba8(const af::Texture& t, uint32_t layer, uint32_t face, uint32_t mip) {
    af::ImageView s = t.surface(layer, face, mip);
    af::Texture img = af::rgba8_picture(s.width, s.height * s.depth);
    af_surface src = s.abi();
    af_surface dst{af::FMT_R8G8B8A8_UNORM, s.width, s.height, s.depth, img.data.data(), img.data.size()};
    if (t.desc.format == af::FMT_P8) {
        const uint8_t* pal = t.palette.data() + size_t(layer) * 1024;
        for (uint64_t i = 0; i < s.size; ++i) std::memcpy(&img.data[i * 4], pal + s.data[i] * 4, 4);
        return img;
    }
    af_error e{};
    if (host()->convert(&src, &dst, nullptr, &e) != AF_OK) throw std::runtime_error(e.message);
    return img;
}

} // namespace xtftest
