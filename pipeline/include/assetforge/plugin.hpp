// The C++ side of the SDK: write a plugin in plain C++ (exceptions, vectors,
// spans) and let these helpers translate at the C boundary. Header-only.
//
//   af_status my_read(const af_host* h, const af_input* in, const af_options* o,
//                     af_texture* out, af_error* e) {
//       return af::sdk::guard(e, [&] { ... af::sdk::export_texture(h, tex, out); });
//   }
#pragma once

#include "assetforge/bytes.hpp"
#include "assetforge/error.hpp"
#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace af::sdk {

// Fills a table header for the current SDK version.
template <class T> constexpr void init_header(T& t) {
    t.struct_size = sizeof(T);
    t.api_major = AF_API_MAJOR;
    t.api_minor = AF_API_MINOR;
}

// What a plugin offers, for make_plugin. Each list must outlive the plugin
// (static arrays), as the host keeps pointers into them.
struct PluginTables {
    std::span<const af_container* const> containers{};
    std::span<const af_codec* const> codecs{};
    std::span<const af_stage* const> stages{};
    std::span<const af_command* const> commands{};
};

// The plugin table with its header filled; counts come from the spans so a
// list and its count can never disagree.
inline af_plugin make_plugin(const char* name, const char* version, const char* description, PluginTables t) {
    af_plugin p{};
    init_header(p);
    p.name = name;
    p.version = version;
    p.description = description;
    p.containers = t.containers.data(), p.container_count = uint32_t(t.containers.size());
    p.codecs = t.codecs.data(), p.codec_count = uint32_t(t.codecs.size());
    p.stages = t.stages.data(), p.stage_count = uint32_t(t.stages.size());
    p.commands = t.commands.data(), p.command_count = uint32_t(t.commands.size());
    return p;
}

// ---- parameter declarations (API 1.2) ------------------------------------
//
// What a stage's parameters, a container's read/write options and a codec's
// encode/decode options are, so the host can check a pipeline when it loads:
//
//   static const af::sdk::ParamTable kParams{
//       af::sdk::one_of("what", {"payload", "cover"}, "what each item holds").def("payload"),
//       af::sdk::integer("level", -1, 15, "only this level (-1: all)").def("-1"),
//       af::sdk::directory("replacements", "folder of replacement pages").required(),
//   };
//   af::sdk::declare_params(stage, kParams);          // or declare_read_options(container, …), …
//   static const char* const kMeta[] = {"level", "x", "y", nullptr};
//   stage.meta_keys = kMeta;                          // af::sdk::kNoMetaKeys when it sets none
//
// Without declarations (plugins built against API 1.0/1.1) the host accepts
// any parameter and value and skips the output-placeholder check.

// One declared parameter, built by the functions below; chain .def(), .required(), .any_case().
struct Param {
    std::string name{}, doc{};
    uint32_t type = AF_PARAM_TEXT;
    uint32_t flags = 0;
    double min = 0, max = 0;
    std::vector<std::string> choices{};
    std::optional<std::string> default_value{};

    Param def(std::string v) && {
        default_value = std::move(v);
        return std::move(*this);
    }
    Param required() && {
        flags |= AF_PARAM_REQUIRED;
        return std::move(*this);
    }
    Param any_case() && {
        flags |= AF_PARAM_IGNORE_CASE;
        return std::move(*this);
    }
};

inline Param text(std::string name, std::string doc) { return {std::move(name), std::move(doc), AF_PARAM_TEXT}; }
inline Param integer(std::string name, long long lo, long long hi, std::string doc) {
    return {std::move(name), std::move(doc), AF_PARAM_INTEGER, AF_PARAM_HAS_MIN | AF_PARAM_HAS_MAX,
            double(lo),      double(hi)};
}
// lo < value <= hi when `above` is set, else lo <= value <= hi.
inline Param number(std::string name, double lo, double hi, std::string doc, bool above = false) {
    return {std::move(name),
            std::move(doc),
            AF_PARAM_NUMBER,
            AF_PARAM_HAS_MIN | AF_PARAM_HAS_MAX | (above ? AF_PARAM_MIN_EXCLUSIVE : 0u),
            lo,
            hi};
}
inline Param number(std::string name, std::string doc) { return {std::move(name), std::move(doc), AF_PARAM_NUMBER}; }
inline Param boolean(std::string name, std::string doc) { return {std::move(name), std::move(doc), AF_PARAM_BOOL}; }
inline Param one_of(std::string name, std::vector<std::string> choices, std::string doc) {
    return {std::move(name), std::move(doc), AF_PARAM_ENUM, 0, 0, 0, std::move(choices)};
}
// Paths the stage reads: the host may hash what they name into its up-to-date checks.
inline Param file(std::string name, std::string doc) { return {std::move(name), std::move(doc), AF_PARAM_FILE}; }
inline Param directory(std::string name, std::string doc) { return {std::move(name), std::move(doc), AF_PARAM_DIR}; }
inline Param list(std::string name, std::string doc, std::vector<std::string> choices = {}) {
    return {std::move(name), std::move(doc), AF_PARAM_LIST, 0, 0, 0, std::move(choices)};
}

// The C tables for a list of Params, built once and kept (static storage:
// the host keeps pointers into them).
class ParamTable {
  public:
    ParamTable() : ParamTable(std::initializer_list<Param>{}) {}
    ParamTable(std::initializer_list<Param> params) : params_(params) {
        choices_.resize(params_.size());
        c_.resize(params_.size());
        for (size_t i = 0; i < params_.size(); ++i) {
            const Param& p = params_[i];
            af_param& c = c_[i];
            init_header(c);
            c.name = p.name.c_str();
            c.type = p.type;
            c.flags = p.flags;
            if (!p.choices.empty()) {
                for (const auto& ch : p.choices) choices_[i].push_back(ch.c_str());
                choices_[i].push_back(nullptr);
                c.choices = choices_[i].data();
            }
            c.default_value = p.default_value ? p.default_value->c_str() : nullptr;
            c.min = p.min;
            c.max = p.max;
            c.doc = p.doc.c_str();
        }
        for (const auto& c : c_) ptrs_.push_back(&c);
        for (const auto& p : params_) names_.push_back(p.name.c_str());
        names_.push_back(nullptr);
    }
    ParamTable(const ParamTable&) = delete;
    ParamTable& operator=(const ParamTable&) = delete;

    // Never NULL, even when empty: an empty table declares "no parameters".
    const af_param* const* decls() const { return ptrs_.empty() ? kNone : ptrs_.data(); }
    uint32_t count() const { return uint32_t(ptrs_.size()); }
    // NULL-terminated names, for af_stage.params (what hosts before API 1.2 read).
    const char* const* names() const { return names_.data(); }
    // The declaration of `name`, or null.
    const Param* find(std::string_view name) const {
        for (const auto& p : params_)
            if (p.name == name) return &p;
        return nullptr;
    }

  private:
    static constexpr const af_param* kNone[1] = {nullptr};
    std::vector<Param> params_;
    std::vector<std::vector<const char*>> choices_;
    std::vector<af_param> c_;
    std::vector<const af_param*> ptrs_;
    std::vector<const char*> names_;
};

inline constexpr const char* kNoMetaKeys[1] = {nullptr};

inline void declare_params(af_stage& s, const ParamTable& t) {
    s.params = t.names();
    s.param_decls = t.decls();
    s.param_decl_count = t.count();
}
inline void declare_read_options(af_container& c, const ParamTable& t) {
    c.read_options = t.decls();
    c.read_option_count = t.count();
}
inline void declare_write_options(af_container& c, const ParamTable& t) {
    c.write_options = t.decls();
    c.write_option_count = t.count();
}
inline void declare_decode_options(af_codec& c, const ParamTable& t) {
    c.decode_options = t.decls();
    c.decode_option_count = t.count();
}
inline void declare_encode_options(af_codec& c, const ParamTable& t) {
    c.encode_options = t.decls();
    c.encode_option_count = t.count();
}

// Read access to string options with typed getters and clear errors.
//
// Built with the ParamTable the options were declared with, the getters
// without a default take the declared one (and an integer's range, an enum's
// choices), so a default is written once, in the declaration:
//
//   const bool rle = af::sdk::Options(options, write_option_table()).flag("rle");
class Options {
  public:
    explicit Options(const af_options* o) : o_(o) {}
    Options(const af_options* o, const ParamTable& declared) : o_(o), declared_(&declared) {}

    std::string str(std::string_view key) const { return str(key, declared_default(key)); }
    bool flag(std::string_view key) const {
        const std::string d = declared_default(key);
        return flag(key, d == "true" || d == "1" || d == "yes" || d == "on");
    }
    long long integer(std::string_view key) const {
        const Param& p = declared(key);
        return integer(key, std::strtoll(p.default_value.value_or("0").c_str(), nullptr, 0),
                       (p.flags & AF_PARAM_HAS_MIN) ? (long long)p.min : LLONG_MIN,
                       (p.flags & AF_PARAM_HAS_MAX) ? (long long)p.max : LLONG_MAX);
    }
    double number(std::string_view key) const {
        return number(key, std::strtod(declared(key).default_value.value_or("0").c_str(), nullptr));
    }
    std::string choice(std::string_view key) const {
        const Param& p = declared(key);
        std::string v = str(key, p.default_value.value_or(""));
        for (const auto& c : p.choices)
            if (v == c) return v;
        std::string list;
        for (const auto& c : p.choices) list += (list.empty() ? "" : ", ") + c;
        usage(format("option %.*s: '%s' is not one of: %s", int(key.size()), key.data(), v.c_str(), list.c_str()));
    }
    std::optional<std::string_view> get(std::string_view key) const {
        if (!o_) return std::nullopt;
        for (uint32_t i = 0; i < o_->count; ++i)
            if (o_->items[i].key && key == o_->items[i].key)
                return std::string_view(o_->items[i].value ? o_->items[i].value : "");
        return std::nullopt;
    }
    std::string str(std::string_view key, std::string_view def) const { return std::string(get(key).value_or(def)); }
    bool flag(std::string_view key, bool def) const {
        auto v = get(key);
        if (!v) return def;
        if (*v == "" || *v == "1" || *v == "true" || *v == "yes" || *v == "on") return true;
        if (*v == "0" || *v == "false" || *v == "no" || *v == "off") return false;
        usage(format("option %.*s: expected true or false, got '%.*s'", int(key.size()), key.data(), int(v->size()),
                     v->data()));
    }
    long long integer(std::string_view key, long long def, long long lo, long long hi) const {
        auto v = get(key);
        if (!v) return def;
        std::string s(*v);
        char* end = nullptr;
        long long x = strtoll(s.c_str(), &end, 0);
        if (s.empty() || *end || x < lo || x > hi)
            usage(format("option %.*s: expected an integer in [%lld, %lld], got '%s'", int(key.size()), key.data(), lo,
                         hi, s.c_str()));
        return x;
    }
    double number(std::string_view key, double def) const {
        auto v = get(key);
        if (!v) return def;
        std::string s(*v);
        char* end = nullptr;
        double x = strtod(s.c_str(), &end);
        if (s.empty() || *end)
            usage(format("option %.*s: expected a number, got '%s'", int(key.size()), key.data(), s.c_str()));
        return x;
    }
    // One of a fixed set of words; the error lists the valid choices.
    std::string choice(std::string_view key, std::string_view def,
                       std::initializer_list<std::string_view> valid) const {
        std::string v = str(key, def);
        for (auto c : valid)
            if (v == c) return v;
        std::string list;
        for (auto c : valid) list += (list.empty() ? "" : ", ") + std::string(c);
        usage(format("option %.*s: '%s' is not one of: %s", int(key.size()), key.data(), v.c_str(), list.c_str()));
    }

  private:
    const Param& declared(std::string_view key) const {
        const Param* p = declared_ ? declared_->find(key) : nullptr;
        if (!p)
            fail(AF_ERR_INTERNAL, AF_NO_OFFSET,
                 format("option %.*s is read without a default but not declared", int(key.size()), key.data()));
        return *p;
    }
    std::string declared_default(std::string_view key) const { return declared(key).default_value.value_or(""); }

    const af_options* o_;
    const ParamTable* declared_ = nullptr;
};

// Owns the key/value storage behind an af_options built on the C++ side.
struct OptionList {
    std::vector<std::pair<std::string, std::string>> kv;
    std::vector<af_kv> c;
    void set(std::string k, std::string v) {
        for (auto& p : kv)
            if (p.first == k) {
                p.second = std::move(v);
                return;
            }
        kv.emplace_back(std::move(k), std::move(v));
    }
    af_options view() {
        c.clear();
        for (auto& [k, v] : kv) c.push_back({k.c_str(), v.c_str()});
        return {c.data(), uint32_t(c.size())};
    }
};

inline uint8_t* host_alloc(const af_host* h, uint64_t n) {
    void* p = h->alloc(n ? n : 1);
    if (!p) fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, format("cannot allocate %llu bytes", (unsigned long long)n));
    return static_cast<uint8_t*>(p);
}

inline char* host_strdup(const af_host* h, std::string_view s) {
    char* p = reinterpret_cast<char*>(host_alloc(h, s.size() + 1));
    memcpy(p, s.data(), s.size());
    p[s.size()] = 0;
    return p;
}

// Hands a texture to the host: data and palette are copied into host memory,
// which the host owns from here on. Metadata is not exported (use stage items).
// `out` cleared, its header and description filled from `d` (no buffers yet).
inline void describe_texture(const TextureDesc& d, af_texture* out) {
    std::memset(out, 0, sizeof *out);
    init_header(*out);
    out->format = d.format;
    out->width = d.width;
    out->height = d.height;
    out->depth = d.depth;
    out->mip_count = d.mips;
    out->layer_count = d.layers;
    out->face_count = d.faces;
    out->flags = d.flags;
    out->alpha_mode = d.alpha_mode;
}

inline void export_texture(const af_host* h, const Texture& t, af_texture* out) {
    describe_texture(t.desc, out);
    out->data = host_alloc(h, t.data.size());
    if (!t.data.empty()) memcpy(out->data, t.data.data(), t.data.size());
    out->data_size = t.data.size();
    if (!t.palette.empty()) {
        out->palette = host_alloc(h, t.palette.size());
        memcpy(out->palette, t.palette.data(), t.palette.size());
        out->palette_size = t.palette.size();
    }
}

// A borrowed C texture read in place, its format and buffer size checked; no copy.
// Valid while the host's af_texture is (the call that lent it).
struct TextureRef {
    TextureDesc desc;
    std::span<const uint8_t> data, palette;
    std::map<std::string, std::string> meta;

    // One surface, ready for get_rgba8 / get_rgba32f (which only read it).
    af_surface surface(uint32_t layer, uint32_t face, uint32_t mip) const {
        if (layer >= desc.layers || face >= desc.faces || mip >= desc.mips)
            fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "surface index out of range");
        const uint64_t off = surface_offset(desc, layer, face, mip);
        return {desc.format,
                mip_extent(desc.width, mip),
                mip_extent(desc.height, mip),
                mip_extent(desc.depth, mip),
                const_cast<uint8_t*>(data.data() + off),
                mip_surface_bytes(desc, mip)};
    }
};

inline TextureRef view_texture(const af_texture& c) {
    TextureRef t;
    TextureDesc& d = t.desc;
    d.format = c.format;
    d.width = c.width;
    d.height = c.height;
    d.depth = c.depth ? c.depth : 1;
    d.mips = c.mip_count ? c.mip_count : 1;
    d.layers = c.layer_count ? c.layer_count : 1;
    d.faces = c.face_count ? c.face_count : 1;
    d.flags = c.flags;
    d.alpha_mode = c.alpha_mode;
    if (!format_info(d.format)) unsupported(format("format id %u", d.format));
    if (texture_bytes(d) != c.data_size)
        fail(AF_ERR_INTERNAL, AF_NO_OFFSET,
             format("texture buffer holds %llu bytes, its description needs %llu", (unsigned long long)c.data_size,
                    (unsigned long long)texture_bytes(d)));
    t.data = {c.data, size_t(c.data_size)};
    if (c.palette && c.palette_size) t.palette = {c.palette, size_t(c.palette_size)};
    for (uint32_t i = 0; i < c.meta_count; ++i)
        if (c.meta[i].key) t.meta[c.meta[i].key] = c.meta[i].value ? c.meta[i].value : "";
    return t;
}

// Copies a borrowed C texture into a C++ one (view_texture's checks).
inline Texture import_texture(const af_texture& c) {
    TextureRef v = view_texture(c);
    Texture t;
    t.desc = v.desc;
    t.data.assign(v.data.begin(), v.data.end());
    t.palette.assign(v.palette.begin(), v.palette.end());
    t.meta = std::move(v.meta);
    return t;
}

// Starts a texture handed to the host without a copy: `out` is described by
// `d` and its data allocated in host memory; the caller fills the returned
// bytes (layer → face → mip order, as surface_offset). The host owns them.
inline std::span<uint8_t> export_new_texture(const af_host* h, const TextureDesc& d, af_texture* out) {
    describe_texture(d, out);
    if (!format_info(d.format)) unsupported(format("format id %u", d.format));
    const uint64_t n = texture_bytes(d);
    out->data = host_alloc(h, n);
    out->data_size = n;
    return {out->data, size_t(n)};
}

// Reads a possibly-older (shorter) table into a zeroed current-size copy.
template <class T> T read_table(const void* p) {
    T out{};
    if (!p) return out;
    uint32_t n = *static_cast<const uint32_t*>(p);
    memcpy(&out, p, std::min<size_t>(n, sizeof(T)));
    out.struct_size = n;
    return out;
}

// A stage's item metadata value for `key`, or "" when the item has none.
inline std::string item_meta(const af_item& it, std::string_view key) {
    for (uint32_t i = 0; i < it.meta_count; ++i)
        if (it.meta[i].key && key == it.meta[i].key) return it.meta[i].value ? it.meta[i].value : "";
    return {};
}

// Emits a bytes item from a stage (the host copies name, bytes and metadata).
inline void emit_bytes(const af_stage_io* io, const std::string& name, std::span<const uint8_t> bytes,
                       const std::vector<std::pair<std::string, std::string>>& kv = {}) {
    std::vector<af_kv> c;
    for (const auto& [k, v] : kv) c.push_back({k.c_str(), v.c_str()});
    af_item it{};
    init_header(it);
    it.name = name.c_str();
    it.bytes = bytes.data();
    it.size = bytes.size();
    it.meta = c.data();
    it.meta_count = uint32_t(c.size());
    if (io->emit(io->ctx, &it) != AF_OK) fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "the host refused an item");
}

// The C view of a texture, metadata included; borrows t, which must outlive it.
class TextureView {
  public:
    explicit TextureView(const Texture& t) {
        init_header(c_);
        c_.format = t.desc.format;
        c_.width = t.desc.width;
        c_.height = t.desc.height;
        c_.depth = t.desc.depth;
        c_.mip_count = t.desc.mips;
        c_.layer_count = t.desc.layers;
        c_.face_count = t.desc.faces;
        c_.flags = t.desc.flags;
        c_.alpha_mode = t.desc.alpha_mode;
        c_.data = const_cast<uint8_t*>(t.data.data());
        c_.data_size = t.data.size();
        if (!t.palette.empty()) {
            c_.palette = const_cast<uint8_t*>(t.palette.data());
            c_.palette_size = t.palette.size();
        }
        for (const auto& [k, v] : t.meta) meta_.push_back({k.c_str(), v.c_str()});
        c_.meta = meta_.data();
        c_.meta_count = uint32_t(meta_.size());
    }
    TextureView(const TextureView&) = delete;
    TextureView& operator=(const TextureView&) = delete;
    const af_texture* get() const { return &c_; }

  private:
    af_texture c_{};
    std::vector<af_kv> meta_;
};

// Emits a texture item from a stage (the host copies it); `kv` is its
// metadata, which output templates can name ({layer}, {x} …). An emitted
// item carries only what is given here: nothing of the input item is added.
inline void emit_texture(const af_stage_io* io, const std::string& name, const Texture& t,
                         const std::vector<std::pair<std::string, std::string>>& kv = {}) {
    TextureView view(t);
    std::vector<af_kv> c;
    for (const auto& [k, v] : kv) c.push_back({k.c_str(), v.c_str()});
    af_item it{};
    init_header(it);
    it.name = name.c_str();
    it.texture = view.get();
    it.meta = c.data();
    it.meta_count = uint32_t(c.size());
    if (io->emit(io->ctx, &it) != AF_OK) fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "the host refused an item");
}

// Runs fn(begin, end) over [0, n) on the host arena; rethrows the first
// exception fn threw, and fails with AF_ERR_CANCELLED when the host was cancelled.
template <class F> void parallel_for(const af_host* h, uint64_t n, uint64_t grain, F&& fn) {
    if (!h || !h->parallel_for || n <= grain) {
        fn(uint64_t(0), n);
        return;
    }
    struct Ctx {
        F* fn;
        std::exception_ptr error;
        std::atomic_flag failed = ATOMIC_FLAG_INIT;
    } ctx{&fn, nullptr};
    h->parallel_for(
        0, n, grain,
        [](void* c, uint64_t b, uint64_t e) {
            auto* x = static_cast<Ctx*>(c);
            try {
                (*x->fn)(b, e);
            } catch (...) {
                if (!x->failed.test_and_set()) x->error = std::current_exception();
            }
        },
        &ctx);
    if (ctx.error) std::rethrow_exception(ctx.error);
    // A cancelled host skips sub-ranges (API 1.3), so the work may be incomplete.
    if (h->cancelled && h->cancelled()) fail(AF_ERR_CANCELLED, AF_NO_OFFSET, "cancelled");
}

} // namespace af::sdk

// Declares the entry point. `table` is a function returning the static af_plugin.
#define AF_DEFINE_PLUGIN(table_fn)                                                                                     \
    extern "C" AF_EXPORT const af_plugin* assetforge_plugin_entry(const af_host* host) { return table_fn(host); }
