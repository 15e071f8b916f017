#include "engine/shard.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

using namespace af::base;
using namespace af::engine;
using namespace af::engine::test;

TEST_CASE("shard: I/N is parsed strictly") {
    CHECK(parse_shard("0/2").index == 0);
    CHECK(parse_shard("3/4").count == 4);
    for (const char* bad : {"2/2", "-1/2", "1/0", "1", "a/b", "1/2x", "", "/2", "1/"})
        CHECK_THROWS_AS(parse_shard(bad), std::invalid_argument);
}

TEST_CASE("shard: sources are split by bytes, deterministically, whatever order they come in") {
    // One huge texture and many small ones: by count, shard 0 would get the huge one and half the rest.
    std::vector<std::pair<std::string, uint64_t>> src{{"huge.dds", 1000}};
    for (int i = 0; i < 100; ++i) src.emplace_back("small" + std::to_string(i) + ".dds", 10);
    auto a = assign_shards(src, 2);
    std::reverse(src.begin(), src.end());
    auto b = assign_shards(src, 2);
    CHECK(a == b);
    uint64_t load[2] = {0, 0};
    size_t files[2] = {0, 0};
    for (const auto& [name, bytes] : src) {
        load[a.at(name)] += bytes + 1; // the cost assign_shards balances: a file costs at least 1
        ++files[a.at(name)];
    }
    CHECK(std::max(load[0], load[1]) - std::min(load[0], load[1]) <= 22); // within two small files
    CHECK(files[a.at("huge.dds")] < 10);                                  // the huge one nearly alone
    CHECK(shard_by_name("x/y.png", 7) == shard_by_name("x/y.png", 7));
}

TEST_CASE("shard: the shards of a build together run each action once, and the build without --shard then "
          "only gathers") {
    TestProject t;
    for (int i = 0; i < 12; ++i) t.write_png("src/" + std::to_string(i) + ".png", 4 + i, 4, uint8_t(i));
    const char* yaml = R"(assetforge: 1
jobs:
  first:
    inputs: "src/*.png"
    steps: [ invert ]
    output: "out/first/{stem}.png"
  second:
    from: first
    steps: [ invert ]
    output: "out/second/{stem}.png"
  pack:
    from: second
    gather: zip
    output: "out/all.zip"
)";
    BuildOptions o0, o1;
    o0.shard_count = o1.shard_count = 2;
    o1.shard_index = 1;
    auto s0 = t.build(yaml, o0);
    auto s1 = t.build(yaml, o1);
    CHECK(s0.failed + s1.failed == 0);
    CHECK(s0.built + s1.built == 24); // 12 × first + second, none twice
    CHECK(s0.built > 0);
    CHECK(s1.built > 0);
    CHECK(s0.built % 2 == 0);                   // a source's whole chain in one shard
    CHECK(s0.skipped == 12 - s0.built / 2 + 1); // the other shard's sources and the gather
    CHECK_FALSE(t.exists("out/all.zip"));
    auto all = t.build(yaml);
    CHECK(all.built == 1); // the zip
    CHECK(all.up_to_date == 24);
    CHECK(t.exists("out/all.zip"));
}
