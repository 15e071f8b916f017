// DDS parser: arbitrary bytes give a texture, a report, or an af::sdk::Error;
// whatever reads must write again and read back to the same texture.
#include "dds_info.hpp"
#include "dds_reader.hpp"
#include "dds_writer.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/write_texture.hpp"

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

namespace {

// `t` written again through the container's write, as the host calls it.
std::optional<std::vector<uint8_t>> write_again(const af::Texture& t) {
    const af::sdk::TextureView c(t);
    af::sdk::VectorSink out;
    af_sink sink = out.sink();
    af_error err{};
    if (af::dds::write_container(nullptr, c.get(), nullptr, &sink, &err) != AF_OK) return std::nullopt;
    return std::move(out.bytes);
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
