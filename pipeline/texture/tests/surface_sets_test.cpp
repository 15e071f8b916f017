// texture::split_surfaces and texture::assemble: a multi-surface texture as
// one picture per surface and back, and every way a set of pictures can be
// incomplete refused by name.
#include "texture/texture_ops.hpp"

#include <catch2/catch.hpp>

#include <cstring>

using namespace af;
namespace tx = af::texture;

namespace {

// An RGBA8 texture whose every byte of surface (layer, face) is 10 * layer + face + 1.
Texture marked(uint32_t layers, uint32_t faces, uint32_t w = 4, uint32_t h = 4) {
    TextureDesc d;
    d.format = FMT_R8G8B8A8_UNORM;
    d.width = w, d.height = h, d.layers = layers, d.faces = faces, d.mips = 2;
    if (faces == 6) d.flags |= AF_TEX_CUBE;
    Texture t(d);
    for (uint32_t l = 0; l < layers; ++l)
        for (uint32_t f = 0; f < faces; ++f) {
            ImageView s = t.surface(l, f, 0);
            std::memset(s.data, int(10 * l + f + 1), s.size);
        }
    return t;
}

uint8_t mark(const Texture& t, uint32_t l, uint32_t f) { return t.surface(l, f, 0).data[0]; }

} // namespace

TEST_CASE("split_surfaces: every layer and face's top level, in order, and assemble puts them back") {
    const Texture cube = marked(2, 6);
    const auto pictures = tx::split_surfaces(cube);
    REQUIRE(pictures.size() == 12);
    CHECK(pictures[7].at.layer == 1);
    CHECK(pictures[7].at.face == 1);
    CHECK(mark(pictures[7].texture, 0, 0) == 12);
    CHECK(pictures[7].texture.desc.mips == 1);
    CHECK(tx::surface_part(cube.desc, pictures[7].at, false) == ".layer1.face1");
    CHECK(tx::surface_part(cube.desc, pictures[7].at, true) == ".frame1.face1");
    CHECK(tx::surface_part(marked(1, 1).desc, {}, false).empty());

    std::vector<tx::SetMember> members;
    for (auto it = pictures.rbegin(); it != pictures.rend(); ++it) // any order
        members.push_back({"p", it->at.layer, it->at.face, std::nullopt, false, &it->texture});
    const Texture back = tx::assemble(members, "env/sky.png");
    CHECK(back.desc.layers == 2);
    CHECK(back.desc.faces == 6);
    CHECK(back.desc.mips == 1);
    CHECK((back.desc.flags & AF_TEX_CUBE));
    for (uint32_t l = 0; l < 2; ++l)
        for (uint32_t f = 0; f < 6; ++f) CHECK(mark(back, l, f) == mark(cube, l, f));
}

TEST_CASE("assemble refuses a missing face, a gap, a double and unlike pictures, naming them") {
    const Texture cube = marked(1, 6);
    auto pictures = tx::split_surfaces(cube);
    std::vector<tx::SetMember> faces;
    for (size_t i = 0; i < 5; ++i)
        faces.push_back({"sky.face" + std::to_string(i) + ".png", std::nullopt, uint32_t(i), std::nullopt, false,
                         &pictures[i].texture});
    CHECK_THROWS_WITH(tx::assemble(faces, "env/sky.png"),
                      Catch::Contains("env/sky.png: 5 of 6 surfaces given (a cubemap has 6 faces), missing "
                                      "sky.face5.png"));

    const Texture arr = marked(3, 1);
    auto layers = tx::split_surfaces(arr);
    std::vector<tx::SetMember> gap = {{"a.frame0.png", 0u, std::nullopt, std::nullopt, true, &layers[0].texture},
                                      {"a.frame2.png", 2u, std::nullopt, std::nullopt, true, &layers[2].texture}};
    CHECK_THROWS_WITH(tx::assemble(gap, "a.png"), Catch::Contains("missing a.frame1.png"));
    std::vector<tx::SetMember> twice = {{"a.layer0.png", 0u, std::nullopt, std::nullopt, false, &layers[0].texture},
                                        {"a.frame0.png", 0u, std::nullopt, std::nullopt, true, &layers[1].texture}};
    CHECK_THROWS_WITH(tx::assemble(twice, "a.png"), Catch::Contains("a.layer0.png and a.frame0.png"));
    const Texture small = tx::split_surfaces(marked(1, 1, 2, 2)).front().texture;
    std::vector<tx::SetMember> sizes = {{"a.layer0.png", 0u, std::nullopt, std::nullopt, false, &layers[0].texture},
                                        {"a.layer1.png", 1u, std::nullopt, std::nullopt, false, &small}};
    CHECK_THROWS_WITH(tx::assemble(sizes, "a.png"), Catch::Contains("a.layer1.png is 2x2"));
    // A picture whose colour tag an editor changed is still alike; a picture of another pixel kind is not.
    Texture retagged = layers[1].texture;
    retagged.desc.format = FMT_R8G8B8A8_UNORM_SRGB;
    std::vector<tx::SetMember> tags = {{"a.layer0.png", 0u, std::nullopt, std::nullopt, false, &layers[0].texture},
                                       {"a.layer1.png", 1u, std::nullopt, std::nullopt, false, &retagged}};
    CHECK(tx::assemble(tags, "a.png").desc.layers == 2);
    Texture wide = layers[1].texture;
    wide.desc.format = FMT_R16G16B16A16_UNORM;
    wide.data.resize(wide.data.size() * 2);
    std::vector<tx::SetMember> kinds_of_pixel = {
        {"a.layer0.png", 0u, std::nullopt, std::nullopt, false, &layers[0].texture},
        {"a.layer1.png", 1u, std::nullopt, std::nullopt, false, &wide}};
    CHECK_THROWS_WITH(tx::assemble(kinds_of_pixel, "a.png"), Catch::Contains("a.layer1.png holds R16G16B16A16_UNORM"));
    std::vector<tx::SetMember> kinds = {{"a.layer0.png", 0u, std::nullopt, std::nullopt, false, &layers[0].texture},
                                        {"a.face1.png", std::nullopt, 1u, std::nullopt, false, &layers[1].texture}};
    CHECK_THROWS_WITH(tx::assemble(kinds, "a.png"), Catch::Contains("name different kinds of surface"));
}

TEST_CASE("split_surfaces with levels: every level of every surface and slice, and assemble keeps each as given") {
    // A volume of 4 slices and 3 levels whose every byte says its level and slice.
    TextureDesc d;
    d.format = FMT_R8G8B8A8_UNORM;
    d.width = 8, d.height = 4, d.depth = 4, d.mips = 3, d.flags = AF_TEX_VOLUME;
    Texture vol(d);
    for (uint32_t m = 0; m < 3; ++m) {
        ImageView s = vol.surface(0, 0, m);
        const size_t slice = s.size / s.depth;
        for (uint32_t z = 0; z < s.depth; ++z) std::memset(s.data + z * slice, int(16 * m + z + 1), slice);
    }
    const auto pictures = tx::split_surfaces(vol, true);
    REQUIRE(pictures.size() == 4 + 2 + 1); // level L has max(1, 4 >> L) slices
    CHECK(pictures[5].at.mip == 1);
    CHECK(pictures[5].at.slice == 1);
    CHECK(pictures[5].texture.desc.width == 4);
    CHECK(pictures[5].texture.desc.height == 2);
    CHECK(pictures[5].texture.surface(0, 0, 0).data[0] == 16 + 2);
    CHECK(tx::surface_part(vol.desc, pictures[5].at, false, true) == ".slice1.mip1");
    CHECK(tx::split_surfaces(vol).size() == 4); // the top level only, as before

    std::vector<tx::SetMember> members;
    for (const auto& p : pictures)
        members.push_back({"p", std::nullopt, std::nullopt, p.at.slice, false, &p.texture, p.at.mip});
    const Texture back = tx::assemble(members, "fog.exr");
    CHECK(back.desc.mips == 3);
    CHECK(back.desc.depth == 4);
    CHECK(back.desc.width == 8);
    CHECK(back.data == vol.data);

    // A level of the wrong size, and one missing, are named.
    members.erase(members.begin() + 5);
    CHECK_THROWS_WITH(tx::assemble(members, "fog.exr"), Catch::Contains("missing fog.slice1.mip1.exr"));
    Texture wrong = pictures[0].texture;
    members.push_back({"fog.slice1.mip1.exr", std::nullopt, std::nullopt, 1u, false, &wrong, 1u});
    CHECK_THROWS_WITH(tx::assemble(members, "fog.exr"),
                      Catch::Contains("fog.slice1.mip1.exr is 8x4; level 1 of a 8x4 texture") &&
                          Catch::Contains("is 4x2"));
}
