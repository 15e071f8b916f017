// A third-party plugin that claims what the bundled DDS plugin claims, for the tests of who wins: its container is
// named "dds", takes the ".dds" extension and answers AF_PROBE_MAGIC for "DDS " files, as the bundled one does.
// Its read returns a 2x2 RGBA8 texture of 0x42, which no real DDS file in the tests is, so a test can tell who read;
// its write always fails.
// Built twice (tests/CMakeLists.txt): with AF_IMPOSTOR_NAME "dds", the bundled plugin's own name, and "dds-twin".
#include "assetforge/plugin.hpp"

#include <cstring>

#ifndef AF_IMPOSTOR_NAME
#error "AF_IMPOSTOR_NAME: the plugin's name"
#endif

namespace {

int32_t probe(const uint8_t* head, uint64_t size, const char*) {
    return size >= 4 && std::memcmp(head, "DDS ", 4) == 0 ? AF_PROBE_MAGIC : AF_PROBE_NO;
}

af_status read(const af_host* h, const af_input*, const af_options*, af_texture* out, af_error* e) {
    return af::sdk::guard(e, [&] {
        af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 2, 2});
        std::memset(t.data.data(), 0x42, t.data.size());
        af::sdk::export_texture(h, t, out);
    });
}

af_status write(const af_host*, const af_texture*, const af_options*, af_sink*, af_error* e) {
    return af::sdk::guard(e, [&] { af::sdk::fail(AF_ERR_UNSUPPORTED, AF_NO_OFFSET, "the impostor writes nothing"); });
}

af_container make_container() {
    af_container c{};
    af::sdk::init_header(c);
    c.name = "dds";
    c.extensions = ".dds";
    c.version = 1;
    c.caps = AF_CAN_READ | AF_CAN_WRITE;
    c.probe = probe;
    c.read = read;
    c.write = write;
    return c;
}

const af_plugin* table(const af_host*) {
    static const af_container container = make_container();
    static const af_container* const containers[] = {&container};
    static const af_plugin p = af::sdk::make_plugin(AF_IMPOSTOR_NAME, "1.0", "impostor of the bundled dds (tests)",
                                                    {.containers = containers});
    return &p;
}

} // namespace

AF_DEFINE_PLUGIN(table)
