#include "host/isolation/plugin_description.hpp"

#include "assetforge/plugin.hpp"
#include "host/isolation/replies.hpp"
#include "host/plugin_registry.hpp"

#include <cstdio>
#include <cstring>
#include <deque>
#include <memory>
#include <stdexcept>
#include <vector>

namespace af::host::isolation {
namespace {

// Which entry points a table has: the host builds its own in their place.
constexpr uint32_t kProbe = 1, kRead = 2, kWrite = 4, kInfo = 8, kDims = 16, kProbeSize = 32;
constexpr uint32_t kDecode = 64, kEncode = 128;

// What the rebuilt tables point into; LoadedPlugin::library keeps it as long as the tables.
struct Storage {
    std::deque<std::string> strings;
    std::deque<af_param> params;
    std::deque<std::vector<const af_param*>> param_lists;
    std::deque<std::vector<const char*>> string_lists;
    std::deque<std::vector<uint32_t>> formats;
};

// ---- worker side ---------------------------------------------------------

void put_text(Writer& w, const char* s) {
    w.u32(s ? 1 : 0);
    if (s) w.str(std::string_view(s).substr(0, kMaxDescribedText));
}

void put_list(Writer& w, const char* const* list) {
    w.u32(list ? 1 : 0);
    if (!list) return;
    uint32_t n = 0;
    while (list[n] && n < kMaxDescribedStrings) ++n;
    w.u32(n);
    for (uint32_t i = 0; i < n; ++i) w.str(std::string_view(list[i]).substr(0, kMaxDescribedText));
}

void put_params(Writer& w, const af_param* const* list, uint32_t count) {
    w.u32(list ? 1 : 0);
    if (!list) return;
    w.u32(count);
    for (uint32_t i = 0; i < count; ++i) {
        // The worker's registry checked every entry when it loaded the plugin (plugin_registry.cpp: check_params).
        const af_param p = sdk::read_table<af_param>(list[i]);
        w.str(p.name).u32(p.type).u32(p.flags);
        put_list(w, p.choices);
        put_text(w, p.default_value);
        uint64_t bits[2];
        std::memcpy(&bits[0], &p.min, sizeof p.min);
        std::memcpy(&bits[1], &p.max, sizeof p.max);
        w.u64(bits[0]).u64(bits[1]);
        put_text(w, p.doc);
    }
}

// ---- host side -----------------------------------------------------------

class Decoder {
  public:
    Decoder(Reader& r, Storage& s) : r_(r), s_(s) {}

    // A count of entries each taking at least `min_bytes`: more than the message holds, or than `cap`, is a lie.
    uint32_t count(uint32_t cap, size_t min_bytes, const char* what) {
        const uint32_t n = r_.u32();
        if (n > cap || n > r_.left() / min_bytes)
            throw std::runtime_error("claims " + std::to_string(n) + " " + what + " (at most " +
                                     std::to_string(std::min<size_t>(cap, r_.left() / min_bytes)) + " fit)");
        return n;
    }
    bool present() {
        const uint32_t v = r_.u32();
        if (v > 1) throw std::runtime_error("a presence flag of " + std::to_string(v));
        return v == 1;
    }
    const char* text(const char* what) {
        const std::string t = r_.str();
        if (t.size() > kMaxDescribedText) throw std::runtime_error(std::string(what) + " longer than allowed");
        if (t.find('\0') != std::string::npos) throw std::runtime_error(std::string(what) + " holds a NUL byte");
        return s_.strings.emplace_back(t).c_str();
    }
    const char* name(const char* what) {
        const char* t = text(what);
        if (!*t) throw std::runtime_error(std::string(what) + " is empty");
        return t;
    }
    const char* optional_text(const char* what) { return present() ? text(what) : nullptr; }
    const char* const* list(const char* what) {
        if (!present()) return nullptr;
        auto& l = s_.string_lists.emplace_back();
        for (uint32_t i = 0, n = count(kMaxDescribedStrings, sizeof(uint32_t), what); i < n; ++i)
            l.push_back(text(what));
        l.push_back(nullptr);
        return l.data();
    }
    // A parameter list and its count; NULL when undeclared.
    const af_param* const* params(uint32_t& n, const std::string& owner) {
        n = 0;
        if (!present()) return nullptr;
        auto& l = s_.param_lists.emplace_back();
        n = count(kMaxDescribedParams, 9 * sizeof(uint32_t), "parameters");
        for (uint32_t i = 0; i < n; ++i) {
            af_param& p = s_.params.emplace_back();
            sdk::init_header(p);
            p.name = name("a parameter's name");
            p.type = r_.u32();
            p.flags = r_.u32();
            p.choices = list("choices");
            p.default_value = optional_text("a default value");
            const uint64_t lo = r_.u64(), hi = r_.u64();
            std::memcpy(&p.min, &lo, sizeof p.min);
            std::memcpy(&p.max, &hi, sizeof p.max);
            p.doc = optional_text("a parameter's doc");
            // What the engine relies on, as the registry checks it for a plugin it loads itself.
            if ((p.type == AF_PARAM_ENUM) && (!p.choices || !p.choices[0]))
                throw std::runtime_error(owner + ", parameter '" + p.name + "': an enum without choices");
            l.push_back(&p);
        }
        return l.data();
    }
    Reader& r() { return r_; }

  private:
    Reader& r_;
    Storage& s_;
};

int32_t unrouted_probe(const uint8_t*, uint64_t, const char*) { return AF_PROBE_NO; }
int32_t unrouted_probe_size(const uint8_t*, uint64_t, uint64_t, const char*) { return AF_PROBE_NO; }

af_status unrouted(af_error* e) {
    if (e) {
        e->code = AF_ERR_INTERNAL;
        e->offset = AF_NO_OFFSET;
        std::snprintf(e->message, sizeof e->message, "%s",
                      "this plugin loads only in a sealed worker, and no route to one was set up for this call");
    }
    return AF_ERR_INTERNAL;
}
af_status unrouted_read(const af_host*, const af_input*, const af_options*, af_texture*, af_error* e) {
    return unrouted(e);
}
af_status unrouted_write(const af_host*, const af_texture*, const af_options*, af_sink*, af_error* e) {
    return unrouted(e);
}
af_status unrouted_info(const af_host*, const af_input*, const af_options*, af_info_text*, af_error* e) {
    return unrouted(e);
}
af_status unrouted_dims(const af_host*, const af_input*, const af_options*, af_dims*, af_error* e) {
    return unrouted(e);
}
af_status unrouted_codec(const af_host*, const af_surface*, af_surface*, const af_options*, af_error* e) {
    return unrouted(e);
}
int32_t sealed_command(const af_host*, int32_t, const char* const*) {
    std::fprintf(stderr, "assetforge: this command's plugin loads only in a sealed worker (see --plugin-trust)\n");
    return 2;
}

af_container get_container(Decoder& d) {
    af_container c{};
    sdk::init_header(c);
    c.name = d.name("a container's name");
    c.extensions = d.optional_text("a container's extensions");
    c.description = d.optional_text("a container's description");
    c.version = d.r().u32();
    c.caps = d.r().u32() & (AF_CAN_READ | AF_CAN_WRITE | AF_CAN_INFO | AF_IMAGE_FILES);
    const uint32_t fns = d.r().u32();
    const std::string owner = std::string("container ") + c.name;
    if (!(fns & kProbe)) throw std::runtime_error(owner + " has no probe");
    c.probe = unrouted_probe;
    if (fns & kProbeSize) c.probe_size = unrouted_probe_size;
    if (fns & kRead) c.read = unrouted_read;
    if (fns & kWrite) c.write = unrouted_write;
    if (fns & kInfo) c.info = unrouted_info;
    if (fns & kDims) c.dims = unrouted_dims;
    if (((c.caps & AF_CAN_READ) && !c.read) || ((c.caps & AF_CAN_WRITE) && !c.write) ||
        ((c.caps & AF_CAN_INFO) && !c.info))
        throw std::runtime_error(owner + " claims a capability without its function");
    c.read_options = d.params(c.read_option_count, owner + " read options");
    c.write_options = d.params(c.write_option_count, owner + " write options");
    c.meta_keys = d.list("meta keys");
    return c;
}

af_codec get_codec(Decoder& d, Storage& s) {
    af_codec c{};
    sdk::init_header(c);
    c.name = d.name("a codec's name");
    c.description = d.optional_text("a codec's description");
    c.version = d.r().u32();
    auto& formats = s.formats.emplace_back();
    for (uint32_t i = 0, n = d.count(kMaxDescribedStrings, sizeof(uint32_t), "formats"); i < n; ++i)
        formats.push_back(d.r().u32());
    c.formats = formats.data();
    c.format_count = uint32_t(formats.size());
    const uint32_t fns = d.r().u32();
    if (fns & kDecode) c.decode = unrouted_codec;
    if (fns & kEncode) c.encode = unrouted_codec;
    const std::string owner = std::string("codec ") + c.name;
    c.decode_options = d.params(c.decode_option_count, owner + " decode options");
    c.encode_options = d.params(c.encode_option_count, owner + " encode options");
    return c;
}

af_stage get_stage(Decoder& d) {
    af_stage st{};
    sdk::init_header(st);
    st.name = d.name("a stage's name");
    st.description = d.optional_text("a stage's description");
    st.version = d.r().u32();
    st.kind = d.r().u32();
    if (st.kind != AF_STAGE_MAP && st.kind != AF_STAGE_GATHER)
        throw std::runtime_error(std::string("stage ") + st.name + " of kind " + std::to_string(st.kind));
    st.takes = d.r().u32() & (AF_STAGE_TAKES_BYTES | AF_STAGE_TAKES_TEXTURE);
    st.params = d.list("parameter names");
    st.param_decls = d.params(st.param_decl_count, std::string("stage ") + st.name);
    st.meta_keys = d.list("meta keys");
    st.run = sealed_stage_unsupported;
    return st;
}

} // namespace

af_status sealed_stage_unsupported(const af_host*, const af_stage_io*, const af_options*, af_error* e) {
    if (e) {
        e->code = AF_ERR_UNSUPPORTED;
        e->offset = AF_NO_OFFSET;
        std::snprintf(e->message, sizeof e->message, "%s",
                      "this stage's plugin loads only in a sealed worker, and the stage was not routed there "
                      "(--isolate none loads the plugin in process)");
    }
    return AF_ERR_UNSUPPORTED;
}

void put_description(Writer& w, const LoadedPlugin& p) {
    w.str(p.name).str(p.version).str(p.description).u32(p.api_major).u32(p.api_minor);
    w.u32(uint32_t(p.containers.size()));
    for (const af_container& c : p.containers) {
        w.str(c.name);
        put_text(w, c.extensions);
        put_text(w, c.description);
        w.u32(c.version).u32(c.caps);
        w.u32((c.probe ? kProbe : 0) | (c.read ? kRead : 0) | (c.write ? kWrite : 0) | (c.info ? kInfo : 0) |
              (c.dims ? kDims : 0) | (c.probe_size ? kProbeSize : 0));
        put_params(w, c.read_options, c.read_option_count);
        put_params(w, c.write_options, c.write_option_count);
        put_list(w, c.meta_keys);
    }
    w.u32(uint32_t(p.codecs.size()));
    for (const af_codec& c : p.codecs) {
        w.str(c.name);
        put_text(w, c.description);
        w.u32(c.version).u32(c.format_count);
        for (uint32_t i = 0; i < c.format_count; ++i) w.u32(c.formats[i]);
        w.u32((c.decode ? kDecode : 0) | (c.encode ? kEncode : 0));
        put_params(w, c.decode_options, c.decode_option_count);
        put_params(w, c.encode_options, c.encode_option_count);
    }
    w.u32(uint32_t(p.stages.size()));
    for (const af_stage& s : p.stages) {
        w.str(s.name);
        put_text(w, s.description);
        w.u32(s.version).u32(s.kind).u32(s.takes);
        put_list(w, s.params);
        put_params(w, s.param_decls, s.param_decl_count);
        put_list(w, s.meta_keys);
    }
    w.u32(uint32_t(p.commands.size()));
    for (const af_command& c : p.commands) {
        w.str(c.name);
        put_text(w, c.summary);
    }
}

void get_description(Reader& r, LoadedPlugin& p) {
    auto storage = std::make_shared<Storage>();
    Decoder d(r, *storage);
    p.name = d.name("the plugin's name");
    p.version = d.text("the plugin's version");
    p.description = d.text("the plugin's description");
    const uint32_t major = r.u32(), minor = r.u32();
    if (major != AF_API_MAJOR || minor > 0xffff)
        throw std::runtime_error("plugin API " + std::to_string(major) + "." + std::to_string(minor) +
                                 ", this host speaks " + std::to_string(AF_API_MAJOR) + "." +
                                 std::to_string(AF_API_MINOR));
    p.api_major = uint16_t(major);
    p.api_minor = uint16_t(minor);
    // Each entry takes at least a few fields; the counts are checked against what is left of the message.
    for (uint32_t i = 0, n = d.count(kMaxDescribedItems, 12 * sizeof(uint32_t), "containers"); i < n; ++i)
        p.containers.push_back(get_container(d));
    for (uint32_t i = 0, n = d.count(kMaxDescribedItems, 8 * sizeof(uint32_t), "codecs"); i < n; ++i)
        p.codecs.push_back(get_codec(d, *storage));
    for (uint32_t i = 0, n = d.count(kMaxDescribedItems, 10 * sizeof(uint32_t), "stages"); i < n; ++i)
        p.stages.push_back(get_stage(d));
    for (uint32_t i = 0, n = d.count(kMaxDescribedItems, 2 * sizeof(uint32_t), "commands"); i < n; ++i) {
        af_command c{};
        sdk::init_header(c);
        c.name = d.name("a command's name");
        c.summary = d.optional_text("a command's summary");
        c.run = sealed_command;
        p.commands.push_back(c);
    }
    if (r.left() != 0) throw std::runtime_error(std::to_string(r.left()) + " bytes past the description's end");
    p.library = storage;
}

bool description_reply(Message& reply, LoadedPlugin& out, std::string& why) {
    close_fds(reply.fds); // a description comes inline; a descriptor with it is not the host's to keep
    try {
        Reader r(reply.body);
        af_error e{};
        if (const af_status st = read_status(r, &e); st != AF_OK) {
            why = std::string(e.message, strnlen(e.message, sizeof e.message));
            // The worker's words, or at least that it refused: a refusal is never said with nothing.
            if (why.empty()) why = "its worker refused to describe it (status " + std::to_string(st) + ")";
            return false;
        }
        get_description(r, out);
        return true;
    } catch (const std::exception& x) {
        why = std::string("its worker described it badly: ") + x.what();
        return false;
    }
}

} // namespace af::host::isolation
