#include "host/declared_dims.hpp"

#include "assetforge/plugin.hpp"
#include "host/host_services.hpp"
#include "host/plugin_registry.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

namespace af::host {

af_status call_dims(const af_container& c, const af_host* host, const char* path, const uint8_t* data, uint64_t size,
                    const af_options* options, af_dims* out, af_error* error) {
    af_input in{};
    sdk::init_header(in);
    in.path = path;
    in.data = data;
    in.size = std::min(size, kDimsHeadBytes);
    *out = af_dims{};
    sdk::init_header(*out);
    af_status st = c.dims(host, &in, options, out, error);
    if (st == AF_OK && (!out->width || !out->height)) {
        error->code = AF_ERR_INVALID_DATA;
        error->offset = AF_NO_OFFSET;
        std::snprintf(error->message, sizeof error->message, "%s", "dims declared a zero width or height");
        return AF_ERR_INVALID_DATA;
    }
    return st;
}

std::optional<DeclaredTexture> declared_texture(const PluginRegistry& reg, const std::string& path,
                                                std::span<const uint8_t> head) {
    // Probing may cost a round trip to a plugin worker: not when no container could answer.
    bool any = false;
    for (const auto& p : reg.plugins())
        for (const auto& c : p->containers) any = any || has_dims(c);
    if (!any) return std::nullopt;
    std::error_code ec;
    const uint64_t size = std::filesystem::file_size(path, ec); // the head is at most 64 KiB of it
    auto c = reg.container_for(path, head.data(), std::min<uint64_t>(head.size(), 4096), ec ? head.size() : size);
    if (!c || !(c.item->caps & AF_CAN_READ) || !has_dims(*c.item)) return std::nullopt;
    af_dims d{};
    af_error e{};
    if (call_dims(*c.item, services(), path.c_str(), head.data(), head.size(), nullptr, &d, &e) != AF_OK)
        return std::nullopt;
    DeclaredTexture t;
    t.desc.format = d.format;
    t.desc.width = d.width;
    t.desc.height = d.height;
    t.desc.depth = std::max(1u, d.depth);
    t.desc.layers = std::max(1u, d.layer_count);
    t.desc.faces = std::max(1u, d.face_count);
    t.desc.mips = std::max(1u, d.mip_count);
    t.container = c.item->name;
    return t;
}

} // namespace af::host
