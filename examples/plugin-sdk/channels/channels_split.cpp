#include "channels_split.hpp"

#include <assetforge/pixels.hpp>

#include <string>
#include <vector>

namespace channels {
namespace {

namespace sdk = af::sdk;

// "a.png" → "a_r.png": the name output templates see as {name}/{stem}.
std::string channel_name(const std::string& name, char channel) {
    const auto dot = name.rfind('.');
    const auto slash = name.rfind('/');
    const bool has_ext = dot != std::string::npos && (slash == std::string::npos || dot > slash);
    const std::string stem = has_ext ? name.substr(0, dot) : name;
    return stem + "_" + channel + (has_ext ? name.substr(dot) : "");
}

std::vector<char> wanted(const sdk::Options& o) {
    std::vector<char> out;
    const std::string list = o.str("channels");
    for (size_t i = 0; i < list.size(); ++i) {
        const char c = list[i];
        if (c == ',' || c == ' ') continue;
        if (c != 'r' && c != 'g' && c != 'b' && c != 'a')
            sdk::usage("channels: '" + std::string(1, c) + "' is not one of r, g, b, a");
        out.push_back(c);
    }
    if (out.empty()) sdk::usage("channels: name at least one of r, g, b, a");
    return out;
}

} // namespace

const sdk::ParamTable& split_params() {
    static const sdk::ParamTable t{
        sdk::list("channels", "which channels to write, each as its own greyscale texture", {"r", "g", "b", "a"})
            .def("r,g,b,a"),
    };
    return t;
}

af_status split(const af_host* host, const af_stage_io* io, const af_options* params, af_error* err) {
    return sdk::guard(err, [&] {
        const std::vector<char> channels = wanted(sdk::Options(params, split_params()));
        for (uint32_t i = 0; i < io->input_count; ++i) {
            const af_item& item = *io->inputs[i];
            if (!item.texture) sdk::usage("channels.split takes textures");
            // Read in place, decoded to RGBA8 by the host (any format, through its codecs): top level only.
            const sdk::TextureRef in = sdk::view_texture(*item.texture);
            const af::Texture px = sdk::get_rgba8(host, in.surface(0, 0, 0)); // an RGBA8 picture
            for (char c : channels) {
                const size_t k = c == 'r' ? 0 : c == 'g' ? 1 : c == 'b' ? 2 : 3;
                af::TextureDesc d;
                d.format = af::FMT_R8_UNORM;
                d.width = px.desc.width;
                d.height = px.desc.height;
                // Colour channels keep the source's encoding (sRGB bytes stay sRGB bytes); alpha is data.
                d.flags = c == 'a' ? AF_TEX_LINEAR : (in.desc.flags & (AF_TEX_SRGB | AF_TEX_LINEAR));
                if (c != 'a' && af::is_srgb(in.desc)) d.flags |= AF_TEX_SRGB;
                af::Texture grey(d);
                for (size_t p = 0; p < grey.data.size(); ++p) grey.data[p] = px.data[p * 4 + k];
                sdk::emit_texture(io, channel_name(item.name ? item.name : "", c), grey,
                                  {{"channel", std::string(1, c)}});
            }
        }
    });
}

} // namespace channels
