// Writing a texture in another container's format through the host
// (af_host.write_texture, API 1.3): a plugin that extracts images hands them
// to the host's PNG writer, or to any container plugin, instead of linking
// an encoder of its own.
//
//   std::vector<uint8_t> png = af::sdk::encode_texture(host, "png", pixels);
#pragma once

#include "assetforge/pixels.hpp"
#include "assetforge/plugin.hpp"

#include <string>
#include <utility>
#include <vector>

namespace af::sdk {

// An af_sink appending to a vector.
struct VectorSink {
    std::vector<uint8_t> bytes;
    af_sink sink() {
        return {this, [](void* ctx, const void* data, uint64_t size) {
                    auto* s = static_cast<VectorSink*>(ctx);
                    const auto* p = static_cast<const uint8_t*>(data);
                    s->bytes.insert(s->bytes.end(), p, p + size);
                    return AF_OK;
                }};
    }
};

inline void write_texture(const af_host* host, const char* container, const Texture& tex, const af_options* options,
                          af_sink& out) {
    if (!AF_HOST_HAS(host, write_texture))
        unsupported(format("writing %s needs a host with API 1.3 (af_host.write_texture)", container));
    TextureView view(tex);
    af_error e{};
    const std::string what = std::string("writing ") + container;
    check_host_call(host->write_texture(container, view.get(), options, &out, &e), e, what.c_str());
}

inline std::vector<uint8_t> encode_texture(const af_host* host, const char* container, const Texture& tex,
                                           const af_options* options = nullptr) {
    VectorSink v;
    af_sink s = v.sink();
    write_texture(host, container, tex, options, s);
    return std::move(v.bytes);
}

} // namespace af::sdk
