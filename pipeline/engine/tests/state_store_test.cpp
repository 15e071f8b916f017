#include "engine/state_store.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

using namespace af::engine;

TEST_CASE("state store persists actions and the stat cache", "[state]") {
    af::engine::test::TestProject t;
    t.write("in.txt", "hello");
    af::Hash128 h;
    {
        StateStore s(t.path(".assetforge"));
        h = s.file_hash("in.txt", t.path("in.txt"));
        CHECK(h == af::hash_string("hello"));
        ActionRecord r;
        r.job = "j";
        r.input = "in.txt";
        r.key = af::hash_string("k");
        r.outputs = {{"out/a b.txt", af::hash_string("o"), FileStat{12, -5, 77}}};
        r.status = "built";
        s.put_action(r);
    }
    StateStore s(t.path(".assetforge"));
    auto r = s.action("j", "in.txt");
    REQUIRE(r);
    CHECK(r->key == af::hash_string("k"));
    REQUIRE(r->outputs.size() == 1);
    CHECK(r->outputs[0].path == "out/a b.txt");
    CHECK(r->outputs[0].hash == af::hash_string("o"));
    CHECK(r->outputs[0].st == FileStat{12, -5, 77});
    // The stat cache answers without reading: prove it by asking for a stat
    // that matches the cache while the file says something else.
    auto st = stat_file(t.path("in.txt"));
    REQUIRE(st);
    t.write("in.txt", "HELLO"); // same size; maybe same mtime tick
    CHECK(s.file_hash("in.txt", t.path("in.txt"), *st) == h);
    auto st2 = *st;
    st2.mtime_ns += 1;
    CHECK(s.file_hash("in.txt", t.path("in.txt"), st2) == af::hash_string("HELLO"));
    s.erase_action("j", "in.txt");
    CHECK_FALSE(s.action("j", "in.txt"));
}
