// Shared by the XTF tests: the SDK's FakeHost wired to the core and the BC
// codec plugin (when it has been built), SHA-256 and file helpers.
#pragma once

#include "assetforge/picture.hpp"
#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"
#include "xtf_writer.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace xtftest {

std::filesystem::path data_dir();
std::vector<uint8_t> read_bytes(const std::filesystem::path& p);
// The bytes of fixture NAME's own file, data/NAME/NAME.xtf.
inline std::vector<uint8_t> fixture_xtf(const std::string& name) {
    return read_bytes(data_dir() / name / (name + ".xtf"));
}
// Fixture NAME's data/NAME/NAME.json, parsed by Json (the tests pass nlohmann::json).
template <class Json> Json manifest(const std::string& fixture) {
    const auto b = read_bytes(data_dir() / fixture / (fixture + ".json"));
    return Json::parse(b.begin(), b.end());
}
std::vector<std::string> fixture_names();
std::string sha256(const uint8_t* p, size_t n);
inline std::string sha256(const std::vector<uint8_t>& v) { return sha256(v.data(), v.size()); }

// FakeHost services: serial or threaded parallel_for, resample through the core, convert through the
// core and, for BC formats, through af_bc when it can be loaded.
const af_host* host(bool threaded = false);
bool bc_codec_available();

// The af_xtf plugin as the host loads it (dlopen, entry with host()), and its
// containers and stages by name (null when absent).
const af_plugin* xtf_plugin();
const af_container* container(const char* name);
const af_stage* stage(const char* name);

// An af_input over `bytes` (which must outlive it).
af_input input_of(const std::vector<uint8_t>& bytes, const char* path);

// Collects what a container writes.
struct ByteSink {
    std::vector<uint8_t> bytes;
    af_sink sink{this, [](void* ctx, const void* d, uint64_t n) {
                     auto* v = &static_cast<ByteSink*>(ctx)->bytes;
                     v->insert(v->end(), static_cast<const uint8_t*>(d), static_cast<const uint8_t*>(d) + n);
                     return AF_OK;
                 }};
};

// Write options for VTF format id `vf`, all else as a user leaves it.
inline af::xtf::XtfWriteOptions xtftest_opts(int32_t vf, bool nomip = false) {
    af::xtf::XtfWriteOptions o;
    o.format = vf;
    o.nomip = nomip;
    return o;
}

// Decodes one surface to RGBA8 (through host()->convert for compressed ones).
af::Texture surface_rgba8(const af::Texture& t, uint32_t layer, uint32_t face, uint32_t mip);

} // namespace xtftest
