// A minimal well-formed plugin: one container that recognises "GOOD" files.
#include "assetforge/plugin.hpp"

#include <cstring>

namespace {

int32_t probe(const uint8_t* head, uint64_t size, const char* path) {
    if (size >= 4 && std::memcmp(head, "GOOD", 4) == 0) return AF_PROBE_MAGIC;
    std::string_view p(path);
    return p.size() > 5 && p.substr(p.size() - 5) == ".good" ? AF_PROBE_EXTENSION : AF_PROBE_NO;
}

// 4-byte magic then one RGBA8 texel.
af_status read(const af_host* h, const af_input* in, const af_options*, af_texture* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        if (in->size != 8) af::sdk::invalid(in->size, "GOOD files are 8 bytes");
        af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 1, 1});
        std::memcpy(t.data.data(), in->data + 4, 4);
        af::sdk::export_texture(h, t, out);
    });
}

af_container make_container() {
    af_container c{};
    af::sdk::init_header(c);
    c.name = "goodfmt";
    c.extensions = ".good";
    c.version = 1;
    c.caps = AF_CAN_READ;
    c.probe = probe;
    c.read = read;
    return c;
}

int32_t hello(const af_host*, int32_t argc, const char* const*) { return argc == 1 ? 0 : 1; }

const af_plugin* table(const af_host*) {
    static const af_container container = make_container();
    static const af_container* const containers[] = {&container};
    static af_command command = [] {
        af_command c{};
        af::sdk::init_header(c);
        c.name = "hello";
        c.summary = "test command";
        c.run = hello;
        return c;
    }();
    static const af_command* const commands[] = {&command};
    static const af_plugin p =
        af::sdk::make_plugin(PLUGIN_NAME, "1.2.3", "ABI test plugin", {.containers = containers, .commands = commands});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
