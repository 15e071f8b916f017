// The naming of a multi-surface texture's pictures (docs/edit-formats.md):
// what is a member, of which set, and what is a plain name.
#include "base/surface_names.hpp"

#include <catch2/catch.hpp>

using af::base::surface_name;

TEST_CASE("surface names: faces, layers, frames and slices name their set", "[surface-names]") {
    auto s = surface_name("env/sky.face3.png");
    REQUIRE(s);
    CHECK(s->set == "env/sky.png");
    CHECK(s->surface == ".face3");
    CHECK(s->face == 3u);
    CHECK_FALSE(s->layer);
    s = surface_name("arr.layer12.face0.exr");
    REQUIRE(s);
    CHECK(s->set == "arr.exr");
    CHECK(s->layer == 12u);
    CHECK(s->face == 0u);
    CHECK_FALSE(s->frame);
    s = surface_name("a.b/anim.v2.frame1.png"); // dots elsewhere in the path or stem stay the stem's
    REQUIRE(s);
    CHECK(s->set == "a.b/anim.v2.png");
    CHECK(s->frame);
    CHECK(s->layer == 1u);
    s = surface_name("fog.slice0.exr");
    REQUIRE(s);
    CHECK(s->slice == 0u);
}

TEST_CASE("surface names: plain names and near misses are not members", "[surface-names]") {
    for (const char* n : {"sky.png", "face3.png", ".face3.png", "sky.face.png", "sky.face03.png", "sky.faces3.png",
                          "sky.face3", "sky.Face3.png", "sky.layer99999999.png", "dir.face1/sky.png"})
        CHECK_FALSE(surface_name(n).has_value());
}

TEST_CASE("surface names: a mip level comes last, after the surface or alone", "[surface-names]") {
    auto s = surface_name("rock.mip2.png");
    REQUIRE(s);
    CHECK(s->set == "rock.png");
    CHECK(s->surface == ".mip2");
    CHECK(s->mip == 2u);
    CHECK_FALSE(s->face);
    s = surface_name("env/sky.face3.mip1.png");
    REQUIRE(s);
    CHECK(s->set == "env/sky.png");
    CHECK(s->surface == ".face3.mip1");
    CHECK(s->face == 3u);
    CHECK(s->mip == 1u);
    s = surface_name("arr.layer2.mip0.png");
    REQUIRE(s);
    CHECK(s->set == "arr.png");
    CHECK(s->layer == 2u);
    CHECK(s->mip == 0u);
    s = surface_name("env.frame1.face5.mip3.exr");
    REQUIRE(s);
    CHECK(s->set == "env.exr");
    CHECK((s->frame && s->layer == 1u && s->face == 5u && s->mip == 3u));
    s = surface_name("fog.slice1.mip1.exr");
    REQUIRE(s);
    CHECK((s->slice == 1u && s->mip == 1u));
    s = surface_name("sky.face3.png");
    REQUIRE(s);
    CHECK_FALSE(s->mip);
    for (const char* n : {"mip2.png", "rock.mip02.png", "rock.mip.png", "rock.Mip2.png"})
        CHECK_FALSE(surface_name(n).has_value());
}
