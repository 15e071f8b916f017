#include "engine/run_marker.hpp"
#include "test_project.hpp"

#include "assetforge/atomic_file.hpp"

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>
#include <vector>

using namespace af::engine;
namespace fs = std::filesystem;

TEST_CASE("the run marker tells a killed build from a running or finished one", "[cancel][marker]") {
    af::engine::test::TestProject t;
    const fs::path dir = t.path(".assetforge");
    {
        RunMarker first(dir);
        CHECK_FALSE(first.previous_build_was_killed());
        CHECK(t.exists(".assetforge/running"));
    }
    CHECK_FALSE(t.exists(".assetforge/running")); // finished normally
    {
        RunMarker again(dir);
        CHECK_FALSE(again.previous_build_was_killed());
    }

    // A marker whose process is gone: a child that has exited and been reaped.
    pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    t.write(".assetforge/running", std::to_string(child) + "\n");
    {
        RunMarker after_kill(dir);
        CHECK(after_kill.previous_build_was_killed());
    }

    // A marker of a live process (our parent, say): another build is running.
    t.write(".assetforge/running", std::to_string(getppid()) + "\n");
    {
        RunMarker concurrent(dir);
        CHECK_FALSE(concurrent.previous_build_was_killed());
    }
    t.write(".assetforge/running", "garbage");
    {
        RunMarker unreadable(dir);
        CHECK(unreadable.previous_build_was_killed());
    }
}

TEST_CASE("only old temporaries directly in the given folders are swept", "[cancel][marker]") {
    af::engine::test::TestProject t;
    const std::string tmp = af::sdk::kTempPrefix;
    t.write("out/" + tmp + "00000000000000a1", "old");
    t.write("out/a.png", "output");
    t.write("out/sub/" + tmp + "00000000000000b2", "old, but in a folder not asked for");
    t.write("out/" + tmp + "00000000000000c3", "written after the build started");
    const auto now = fs::file_time_type::clock::now();
    fs::last_write_time(t.path("out/" + tmp + "00000000000000a1"), now - std::chrono::seconds(10));
    fs::last_write_time(t.path("out/sub/" + tmp + "00000000000000b2"), now - std::chrono::seconds(10));
    fs::last_write_time(t.path("out/" + tmp + "00000000000000c3"), now + std::chrono::seconds(10));
    CHECK(remove_abandoned_temporaries({t.path("out"), t.path("missing")}, now) == 1);
    CHECK_FALSE(t.exists("out/" + tmp + "00000000000000a1"));
    CHECK(t.exists("out/a.png"));
    CHECK(t.exists("out/sub/" + tmp + "00000000000000b2"));
    CHECK(t.exists("out/" + tmp + "00000000000000c3"));
}

TEST_CASE("the sweep removes only the tool's own temporaries, named .af-tmp- and 16 hex digits", "[cancel][marker]") {
    af::engine::test::TestProject t;
    const std::string tmp = af::sdk::kTempPrefix;
    const std::vector<std::string> users = {tmp + "notes.txt", tmp + "0123456789ABCDEF", tmp + "0123456789abcdef0",
                                            tmp + "0123456789abcde", tmp + "0123456789abcdeg"};
    for (const auto& n : users) t.write("out/" + n, "a user's file");
    t.write("out/" + tmp + "0123456789abcdef", "left by a killed build");
    const auto now = fs::file_time_type::clock::now();
    for (const auto& e : fs::directory_iterator(t.path("out")))
        fs::last_write_time(e.path(), now - std::chrono::seconds(10));
    CHECK(remove_abandoned_temporaries({t.path("out")}, now) == 1);
    CHECK_FALSE(t.exists("out/" + tmp + "0123456789abcdef"));
    for (const auto& n : users) CHECK(t.exists("out/" + n));
}
