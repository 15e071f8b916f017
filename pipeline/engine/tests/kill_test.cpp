// kill -9 in the middle of a build: no partial outputs, and the next build
// finishes the job correctly.
#include "test_project.hpp"

#include "core/png_io.hpp"

#include <catch2/catch.hpp>

#include <csignal>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

extern char** environ;

using namespace af::engine;
using namespace af::engine::test;

TEST_CASE("kill -9 during a build leaves no partial outputs", "[cancel][process]") {
    TestProject t;
    const int n = 40;
    for (int i = 0; i < n; ++i) t.write_png("src/f" + std::to_string(i) + ".png", 64, 64, uint8_t(i));
    t.write("pipeline.yaml", R"(assetforge: 1
jobs:
  j:
    inputs: "src/*.png"
    steps: [ { slow: { ms: 40 } }, invert ]
    output: "out/{stem}.png"
)");
    std::string driver = ENGINE_BUILD_DRIVER, yaml = t.path("pipeline.yaml").string();
    char* argv[] = {driver.data(), yaml.data(), nullptr};
    pid_t pid;
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    REQUIRE(posix_spawn(&pid, driver.c_str(), &fa, nullptr, argv, environ) == 0);
    posix_spawn_file_actions_destroy(&fa);
    // Wait until some outputs exist, then kill without warning.
    for (int i = 0; i < 500; ++i) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        std::error_code ec;
        if (std::filesystem::exists(t.path("out"), ec) &&
            std::distance(std::filesystem::directory_iterator(t.path("out")), {}) >= 4)
            break;
    }
    kill(pid, SIGKILL);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFSIGNALED(status));
    size_t complete = 0;
    for (const auto& e : std::filesystem::directory_iterator(t.path("out"))) {
        std::string name = e.path().filename().string();
        if (name.rfind(".af-tmp-", 0) == 0) continue; // an abandoned temporary: never under the real name
        CHECK_NOTHROW(af::read_png_file(e.path()));   // every real output is complete
        ++complete;
    }
    CHECK(complete < size_t(n));
    // One abandoned temporary for certain (the kill may have found none open).
    t.write("out/.af-tmp-0000000000000000", "half a png");
    std::filesystem::last_write_time(t.path("out/.af-tmp-0000000000000000"),
                                     std::filesystem::file_time_type::clock::now() - std::chrono::seconds(5));
    // The next build completes the set, and a third has nothing to do.
    auto s = t.build(t.read("pipeline.yaml"));
    CHECK(s.failed == 0);
    CHECK(s.built + s.up_to_date == size_t(n));
    CHECK(s.built >= size_t(n) - complete);
    for (int i = 0; i < n; ++i) {
        auto img = af::read_png_file(t.path("out/f" + std::to_string(i) + ".png"));
        auto src = af::read_png_file(t.path("src/f" + std::to_string(i) + ".png"));
        CHECK(img.data[0] == uint8_t(255 - src.data[0]));
    }
    // That build also swept whatever temporaries the killed one abandoned.
    for (const auto& e : std::filesystem::directory_iterator(t.path("out")))
        CHECK(e.path().filename().string().rfind(".af-tmp-", 0) != 0);
    auto s2 = t.build(t.read("pipeline.yaml"));
    CHECK(s2.built == 0);
}
