// The normal-map rule on what real game trees hold: names like
// stone_furrowed_norm.png.cached.dds, data in alpha, and vectors that DXT
// compression left only roughly unit length.
#include "texture/auto_format.hpp"
#include "texture/normal_map_rule.hpp"
#include "texture/texture_ops.hpp"

#include "assetforge/formats.hpp"
#include "core/pixel_convert.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <random>

using namespace af;
namespace tx = af::texture;

namespace {

// A tangent-space normal map as a real DXT5 one looks: bumpy vectors (x, y
// up to ±0.6), lengths shortened by up to 25 % (only about 63 % within 0.1
// of one), and a height field in alpha.
Texture real_like_normal_map(uint32_t size, bool alpha_data, unsigned seed = 7) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(0.0f, 1.0f);
    Texture img = rgba8_picture(size, size, false);
    for (size_t i = 0; i < texels(img); ++i) {
        float x = (u(rng) - 0.5f) * 1.2f, y = (u(rng) - 0.5f) * 1.2f;
        float z = std::sqrt(std::max(0.0f, 1.0f - x * x - y * y));
        const float k = u(rng), len = 1.0f - 0.25f * k * k;
        auto enc = [](float v) { return uint8_t(std::lround((v * 0.5f + 0.5f) * 255.0f)); };
        img.data[i * 4] = enc(x * len), img.data[i * 4 + 1] = enc(y * len), img.data[i * 4 + 2] = enc(z * len);
        img.data[i * 4 + 3] = alpha_data ? uint8_t(40 + (i * 37) % 200) : 255;
    }
    return img;
}

Texture filled16(uint8_t r, uint8_t g, uint8_t b, uint8_t a) {
    Texture img = rgba8_picture(16, 16, true);
    for (size_t i = 0; i < texels(img); ++i)
        img.data[i * 4] = r, img.data[i * 4 + 1] = g, img.data[i * 4 + 2] = b, img.data[i * 4 + 3] = a;
    return img;
}

Texture texture_of(const Texture& img, uint32_t format) {
    TextureDesc d;
    d.format = format;
    d.width = img.desc.width;
    d.height = img.desc.height;
    Texture t(d);
    ImageView s = t.surface(0, 0, 0);
    image_to_surface(img, format, s.data, s.size);
    return t;
}

// Mean of a channel (0..1) of one level of an RGBA8 texture.
double mean_channel(const Texture& t, uint32_t mip, int ch) {
    ImageView s = t.surface(0, 0, mip);
    double sum = 0;
    const size_t n = size_t(s.width) * s.height;
    for (size_t i = 0; i < n; ++i) sum += s.data[i * 4 + ch];
    return sum / double(n) / 255.0;
}

} // namespace

TEST_CASE("normal maps: a name token anywhere in the name's parts") {
    for (const char* yes : {"stone_furrowed_norm.png.cached.dds", "normal0005.png.cached.dds", "rock_normal.png",
                            "wall_nrm.tga", "rock_n.png", "perlin-noise-nm.dds", "Rock-NORMAL.PNG", "rockNormal.png",
                            "rwy-normalmap.dds", "water_sine_nmap.dds", "wall_n.png.cached.dds", "fuselage-normal.png",
                            "dir/sub/brick_Norm.dds", "normals.png"})
        CHECK(tx::normal_map_name_token(yes) != "");
    CHECK(tx::normal_map_name_token("stone_furrowed_norm.png.cached.dds") == "norm");
    CHECK(tx::normal_map_name_token("normal0005.png.cached.dds") == "normal");
    for (const char* no : {"brown.png", "moon.png", "pan_n2.png", "m2000-N_lowpoly.png", "enormous.png",
                           "abnormality.dds", "normal_dir/brown.png", "n.png", "signs_nmx.png", "nm.dds"})
        CHECK(tx::normal_map_name_token(no) == "");
}

TEST_CASE("normal maps: the texel rule ignores alpha and takes vectors DXT shortened") {
    const tx::Content c = tx::analyse(real_like_normal_map(64, true));
    CHECK(c.alpha == tx::AlphaKind::Smooth);
    CHECK(c.vectors.near_unit < 0.8f); // the old rule's 95 % would refuse it
    CHECK(c.vectors.near_unit > 0.5f);
    CHECK(c.unit_vectors);
    // Pale blue-grey photos and skies point roughly up but lean to one side.
    CHECK_FALSE(tx::analyse(filled16(180, 190, 220, 255)).unit_vectors);
    CHECK_FALSE(tx::analyse(filled16(100, 150, 230, 255)).unit_vectors);
    CHECK_FALSE(tx::analyse(filled16(200, 100, 50, 255)).unit_vectors);
    CHECK_FALSE(tx::analyse(filled16(128, 128, 128, 255)).unit_vectors);
    // A BC5 decode (blue 0): X and Y inside the unit circle.
    Texture two = real_like_normal_map(32, false);
    for (size_t i = 0; i < texels(two); ++i) two.data[i * 4 + 2] = 0;
    CHECK(tx::analyse(two).vectors.two_channel);
    CHECK(tx::analyse(two).unit_vectors);
}

TEST_CASE("normal maps: the rule says what decided") {
    const Texture img = real_like_normal_map(32, true);
    const Texture t = texture_of(img, FMT_R8G8B8A8_UNORM);
    const tx::Content c = tx::analyse(img);
    CHECK(tx::recognise_normal_map(t, c, "stone_norm.dds").rule == "file name token 'norm'");
    CHECK_THAT(tx::recognise_normal_map(t, c, "stone.dds").rule, Catch::StartsWith("texels: "));
    // A DuDv map's two centred channels pass the texel rule; its name says otherwise
    // (FlightGear's waves-ver10-dudv.dds).
    CHECK(tx::recognise_normal_map(t, c, "waves-ver10-dudv.dds").rule ==
          "file name token 'dudv' (a distortion map, not normals)");
    CHECK_FALSE(tx::recognise_normal_map(t, c, "waves-ver10-dudv.dds").yes);
    const tx::Content colour = tx::analyse(filled16(200, 100, 50, 255));
    CHECK_FALSE(tx::recognise_normal_map(t, colour, "brown.dds").yes);
    auto never =
        tx::normal_map_override({"**/*_norm*", "!**/decal_*"}, "a/decal_norm.dds", [](auto, auto) { return true; });
    CHECK(never.mode == tx::NormalMapMode::No);
    CHECK(never.why == "pattern '!**/decal_*' of normal_maps");
    CHECK(tx::split_patterns("**/*_norm*,!x/{a,b}.png") == std::vector<std::string>{"**/*_norm*", "!x/{a,b}.png"});
}

TEST_CASE("auto: a normal map whose alpha holds data keeps an alpha format, never sRGB") {
    tx::AutoHints h;
    h.name = "stone_furrowed_norm.png.cached.dds";
    const tx::Content c = tx::analyse(real_like_normal_map(32, true));
    tx::AutoChoice fast = tx::choose_format(c, h);
    CHECK(fast.format == FMT_BC3_UNORM);
    CHECK_THAT(fast.why, Catch::Contains("normal map with data in alpha") && Catch::Contains("'norm'"));
    h.quality = tx::Quality::High;
    CHECK(tx::choose_format(c, h).format == FMT_BC7_UNORM);
    const tx::Content opaque = tx::analyse(real_like_normal_map(32, false));
    CHECK(tx::choose_format(opaque, {.name = "x.png"}).format == FMT_BC5_UNORM); // by texels
}

TEST_CASE("match: a normal map with alpha gets its mips filtered as data, not sRGB colour") {
    host::PluginRegistry reg;
    tx::Ops ops{reg};
    // An untagged DDS original with 4 levels; the edited top level comes back
    // alone, as a PNG, which reads as sRGB (docs/colour-space.md).
    Texture top = texture_of(real_like_normal_map(64, true, 11), FMT_R8G8B8A8_UNORM_SRGB);
    tx::MatchTarget like;
    like.format = FMT_R8G8B8A8_UNORM;
    like.mips = 4;
    like.path = "orig/stone_furrowed_norm.png.cached.dds";
    tx::EncodeRequest req;
    req.format = tx::parse_encode_format("match");
    req.like = &like;
    req.name = "stone_furrowed_norm.png.cached.dds";
    tx::Encoded e = tx::encode(ops, top, req);
    REQUIRE(e.texture.desc.mips == 4);
    REQUIRE(e.normal_map);
    CHECK(tx::verdict_text(*e.normal_map) == "yes: file name token 'norm'");
    for (int ch = 0; ch < 2; ++ch) {
        CHECK(mean_channel(e.texture, 0, ch) == Approx(0.5).margin(0.01));
        CHECK(mean_channel(e.texture, 3, ch) == Approx(0.5).margin(0.01)); // sRGB filtering drifts to 0.54
    }
    // Alpha is data: its mean stays where it was (straight, not premultiplied or curved).
    CHECK(mean_channel(e.texture, 3, 3) == Approx(mean_channel(e.texture, 0, 3)).margin(0.01));
    // The same texels under a colour name are recognised by the texel rule.
    req.name = "stone.png.cached.dds";
    CHECK_THAT(tx::verdict_text(*tx::encode(ops, top, req).normal_map), Catch::StartsWith("yes: texels: "));
    // The job's "not a normal map" wins over name and texels.
    req.normal_map = tx::NormalMapMode::No;
    req.normal_map_why = "pattern '!**/stone*' of normal_maps";
    tx::Encoded colour = tx::encode(ops, top, req);
    REQUIRE(colour.normal_map);
    CHECK(tx::verdict_text(*colour.normal_map) == "no: pattern '!**/stone*' of normal_maps");
    // ...and then it is filtered as untagged (sRGB) colour: the drift the old rule let through.
    CHECK(mean_channel(colour.texture, 3, 0) > 0.52);
}

TEST_CASE("encode: every discarded piece of information is named") {
    host::PluginRegistry reg;
    tx::Ops ops{reg};
    Texture soft = texture_of(filled16(200, 100, 50, 128), FMT_R8G8B8A8_UNORM_SRGB);
    auto losses = [&](const Texture& t, const std::string& format) {
        tx::EncodeRequest req;
        req.format = tx::parse_encode_format(format);
        req.name = "brown.png";
        return tx::encode(ops, t, req).losses;
    };
    auto lost = losses(soft, "B5G6R5_UNORM");
    REQUIRE(lost.size() == 2);
    CHECK_THAT(lost[0], Catch::StartsWith("alpha dropped") && Catch::Contains("B5G6R5_UNORM"));
    CHECK_THAT(lost[1], Catch::StartsWith("bit depth: 8-bit channels stored in 6 bits"));
    CHECK(losses(soft, "rgba8").empty());
    lost = losses(texture_of(filled16(200, 100, 50, 255), FMT_R8G8B8A8_UNORM), "rg8");
    REQUIRE(lost.size() == 1);
    CHECK_THAT(lost[0], Catch::StartsWith("blue dropped"));
    Texture wide = texture_of(filled16(200, 100, 50, 255), FMT_R16G16B16A16_UNORM);
    lost = losses(wide, "rgba8");
    REQUIRE(lost.size() == 1);
    CHECK(lost[0] == "bit depth: 16-bit channels stored in 8 bits (R8G8B8A8_UNORM)");
}
