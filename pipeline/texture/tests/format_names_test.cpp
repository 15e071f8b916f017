#include "texture/format_names.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

using af::texture::parse_format_name;

TEST_CASE("every spelling a user may type names one format") {
    CHECK(parse_format_name("bc1", false) == af::FMT_BC1_UNORM);
    CHECK(parse_format_name("DXT1", false) == af::FMT_BC1_UNORM);
    CHECK(parse_format_name("dxt5", true) == af::FMT_BC3_UNORM_SRGB);
    CHECK(parse_format_name("ati1", false) == af::FMT_BC4_UNORM);
    CHECK(parse_format_name("ATI2", true) == af::FMT_BC5_UNORM); // no sRGB form
    CHECK(parse_format_name("bc6h", true) == af::FMT_BC6H_UF16);
    CHECK(parse_format_name("rgba8", true) == af::FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(parse_format_name("rgba32f", false) == af::FMT_R32G32B32A32_FLOAT);
    CHECK(parse_format_name("BGRA8888", false) == af::FMT_B8G8R8A8_UNORM);
    CHECK(parse_format_name("DXT1_ONEBITALPHA", false) == af::FMT_BC1_UNORM);
    CHECK(parse_format_name("IMAGE_FORMAT_DXT5", false) == af::FMT_BC3_UNORM);
    CHECK(parse_format_name("UV88", false) == af::FMT_R8G8_SNORM);
}

TEST_CASE("a format-table name is taken literally, with or without DXGI_FORMAT_") {
    CHECK(parse_format_name("BC1_UNORM", true) == af::FMT_BC1_UNORM);
    CHECK(parse_format_name("bc7_unorm_srgb", false) == af::FMT_BC7_UNORM_SRGB);
    CHECK(parse_format_name("DXGI_FORMAT_R16G16B16A16_FLOAT", false) == af::FMT_R16G16B16A16_FLOAT);
}

TEST_CASE("an unknown name is a usage error listing what may be typed") {
    CHECK_FALSE(parse_format_name("bc9", false));
    try {
        af::texture::format_from_name("bc9", false);
        FAIL("no error");
    } catch (const af::sdk::Error& e) {
        CHECK(e.status() == AF_ERR_USAGE);
        CHECK(std::string(e.what()).find("dxt1") != std::string::npos);
    }
}

TEST_CASE("the format table knows sRGB twins, signedness and float decoding") {
    CHECK(af::with_srgb(af::FMT_BC3_UNORM, true) == af::FMT_BC3_UNORM_SRGB);
    CHECK(af::with_srgb(af::FMT_BC7_UNORM_SRGB, false) == af::FMT_BC7_UNORM);
    CHECK(af::with_srgb(af::FMT_BC4_UNORM, true) == af::FMT_BC4_UNORM);
    CHECK_FALSE(af::has_srgb_twin(af::FMT_BC6H_UF16));
    CHECK(af::format_info(af::FMT_BC5_SNORM)->is_signed());
    CHECK(af::format_info(af::FMT_BC6H_SF16)->is_signed());
    CHECK_FALSE(af::format_info(af::FMT_BC6H_UF16)->is_signed());
    CHECK(af::format_info(af::FMT_R8G8_SNORM)->is_signed());
    CHECK(af::format_info(af::FMT_BC4_SNORM)->decodes_to_float());
    CHECK(af::format_info(af::FMT_R16G16B16A16_UNORM)->decodes_to_float());
    CHECK_FALSE(af::format_info(af::FMT_BC1_UNORM)->decodes_to_float());
    CHECK_FALSE(af::format_info(af::FMT_B5G6R5_UNORM)->decodes_to_float());
}

TEST_CASE("format_among maps any parsed name to a container's own name, or names the nearest it has") {
    using af::texture::format_among;
    const std::vector<std::string> vtf = {
        "auto", "RGBA8888", "ABGR8888", "RGB888",   "BGR888",           "I8",   "IA88",         "A8", "BGRA8888",
        "DXT1", "DXT3",     "DXT5",     "BGRX8888", "DXT1_ONEBITALPHA", "UV88", "RGBA16161616F"};
    CHECK(format_among("bc1", vtf, "xtf") == "DXT1");
    CHECK(format_among("DXT1", vtf, "xtf") == "DXT1");
    CHECK(format_among("dxt1_onebitalpha", vtf, "xtf") == "DXT1_ONEBITALPHA"); // spelt as a choice: kept
    CHECK(format_among("BC1_UNORM_SRGB", vtf, "xtf") == "DXT1");
    CHECK(format_among("bc3", vtf, "xtf") == "DXT5");
    CHECK(format_among("rgba8", vtf, "xtf") == "RGBA8888");
    CHECK(format_among("bgra8", vtf, "xtf") == "BGRA8888");
    CHECK(format_among("auto", vtf, "xtf") == "auto");
    auto refused = [&](const char* name) {
        try {
            format_among(name, vtf, "xtf");
        } catch (const af::sdk::Error& e) {
            CHECK(e.status() == AF_ERR_USAGE);
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    CHECK_THAT(refused("bc7"), Catch::Contains("nearest it has is DXT5"));
    CHECK_THAT(refused("bc6h"), Catch::Contains("nearest it has is RGBA16161616F"));
    CHECK_THAT(refused("r8"), Catch::Contains("nearest it has is I8"));
    CHECK_THAT(refused("nosuch"), Catch::Contains("unknown format 'nosuch'"));
}
