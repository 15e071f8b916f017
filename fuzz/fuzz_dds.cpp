// DDS parser: arbitrary bytes give a texture, a report, or an af::sdk::Error;
// whatever reads must write again and read back to the same texture.
#include "dds_info.hpp"
#include "dds_reader.hpp"
#include "dds_writer.hpp"

#include "assetforge/plugin.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

// `t` written again through the container's write, as the host calls it.
std::optional<std::vector<uint8_t>> write_again(const af::Texture& t) {
    af_texture c{};
    af::sdk::init_header(c);
    c.format = t.desc.format;
    c.width = t.desc.width;
    c.height = t.desc.height;
    c.depth = t.desc.depth;
    c.mip_count = t.desc.mips;
    c.layer_count = t.desc.layers;
    c.face_count = t.desc.faces;
    c.flags = t.desc.flags;
    c.alpha_mode = t.desc.alpha_mode;
    c.data = const_cast<uint8_t*>(t.data.data());
    c.data_size = t.data.size();
    std::vector<uint8_t> out;
    af_sink sink{&out, [](void* ctx, const void* p, uint64_t n) {
                     auto* o = static_cast<std::vector<uint8_t>*>(ctx);
                     o->insert(o->end(), static_cast<const uint8_t*>(p), static_cast<const uint8_t*>(p) + n);
                     return AF_OK;
                 }};
    af_error err{};
    if (af::dds::write_container(nullptr, &c, nullptr, &sink, &err) != AF_OK) return std::nullopt;
    return out;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    af::dds::ReadOptions opt;
    opt.permissive = size && (data[size - 1] & 1);
    opt.limits.max_texture_bytes = 64u << 20;
    try {
        (void)af::dds::info_report(data, size, opt.limits);
    } catch (const af::sdk::Error&) {
    }
    try {
        af::Texture t = af::dds::read_dds(data, size, opt);
        const auto again = write_again(t);
        if (!again) return 0; // e.g. a 1-D or typeless layout the writer refuses
        af::Texture back = af::dds::read_dds(again->data(), again->size(), {});
        if (back.data != t.data || back.desc.format != t.desc.format || back.desc.mips != t.desc.mips) __builtin_trap();
    } catch (const af::sdk::Error&) {
    }
    return 0;
}
