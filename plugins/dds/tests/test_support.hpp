// Shared helpers for the DDS tests: test data, scratch directories, running
// the external reference tools (Pillow, ImageMagick, nvtt).
#pragma once

#include "dds_writer.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace dds_test {

std::filesystem::path data_dir();
std::vector<std::filesystem::path> corpus_files(); // every *.dds in tests/data, sorted
std::vector<uint8_t> read_file(const std::filesystem::path& p);
void write_file(const std::filesystem::path& p, const std::vector<uint8_t>& bytes);

// A fresh directory under the system temp dir, removed by the destructor.
struct ScratchDir {
    std::filesystem::path path;
    explicit ScratchDir(const std::string& tag);
    ~ScratchDir();
};

struct RunResult {
    int status = -1; // exit code, or -1 when the command did not run
    std::string out; // stdout and stderr together
};
RunResult run(const std::string& command);
std::string quote(const std::string& s);

// Reference tools; each returns "" when present, else why it is absent.
std::string python_pillow_missing();
std::string tool_missing(const char* exe);
inline const char* kPython = "/usr/bin/python3";

// The description of a texture of `fmt`, w×h, with that many mips, layers and faces.
inline af::TextureDesc desc_of(uint32_t fmt, uint32_t w, uint32_t h, uint32_t mips, uint32_t layers = 1,
                               uint32_t faces = 1) {
    af::TextureDesc d;
    d.format = fmt;
    d.width = w;
    d.height = h;
    d.mips = mips;
    d.layers = layers;
    d.faces = faces;
    return d;
}

// A texture with deterministic pseudo-random bytes.
af::Texture random_texture(const af::TextureDesc& d, uint32_t seed);

// The plugin's container, from its registration (plugin.cpp is built into the tests).
const af_container* dds_container();

// `tex` written through the container's write with option dx10 = `mode`;
// throws af::sdk::Error with the status and message the write returned.
std::vector<uint8_t> write_dds(const af::Texture& tex, af::dds::Dx10Mode mode = af::dds::Dx10Mode::Auto);

} // namespace dds_test
