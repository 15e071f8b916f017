#include "texture/texture_ops.hpp"

#include "assetforge/plugin.hpp"

namespace af::texture {
namespace {

std::string count_text(uint32_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

// What the original holds that `t` lacks, in the words of its container
// ("2 layers (array layers or animation frames)"), or "" when nothing.
std::string missing_surfaces(const TextureDesc& t, const TextureDesc& original) {
    std::string out;
    auto add = [&out](const std::string& part) { out += (out.empty() ? "" : ", ") + part; };
    if (t.layers < original.layers)
        add(count_text(original.layers, "layer", "layers") +
            " (array layers or animation frames) where the input has " + std::to_string(t.layers));
    if (t.faces < original.faces)
        add(count_text(original.faces, "face", "faces") + (original.faces == 6 ? " (a cubemap)" : "") +
            " where the input has " + std::to_string(t.faces));
    if (t.depth < original.depth)
        add(count_text(original.depth, "depth slice", "depth slices") + " where the input has " +
            std::to_string(t.depth));
    return out;
}

} // namespace

void check_match_surfaces(const Texture& t, const MatchTarget& like, std::string_view name) {
    // One edited picture cannot say which frame, face or layer it replaces:
    // writing it alone would give a file with fewer surfaces than the game's.
    const std::string missing = missing_surfaces(t.desc, like.texture.desc);
    if (missing.empty()) return;
    sdk::unsupported(std::string(name) + ": format: match with " + like.path + ": the original holds " + missing +
                     "; writing the input alone would drop the rest, so nothing is written (rebuilding a "
                     "multi-surface original from one edited picture is not supported: give a texture with every "
                     "surface, or an original of one surface)");
}

} // namespace af::texture
