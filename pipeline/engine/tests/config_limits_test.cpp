// The pipeline file and its includes are read only if they are regular files
// of at most 16 MiB: a device, a pipe or a huge file is refused at once with a
// message naming it, instead of being read until memory runs out.
#include "load_error.hpp"
#include "test_project.hpp"

#include <catch2/catch.hpp>

#include <chrono>
#include <string>
#include <sys/stat.h>

using namespace af::engine;
using namespace af::engine::test;
namespace fs = std::filesystem;

namespace {

std::string limits_load_error(const std::filesystem::path& file) {
    return test::load_error(file, std::chrono::seconds(2));
}

const char* kJobs = "jobs:\n  j: { inputs: \"*.png\", output: \"o/{stem}.png\" }\n";

} // namespace

TEST_CASE("includes that are devices, pipes or directories are refused at once", "[config][limits]") {
    TestProject t;
    t.write("pipeline.yaml", std::string("assetforge: 1\ninclude: [ /dev/zero ]\n") + kJobs);
    std::string e = limits_load_error(t.path("pipeline.yaml"));
    // Outside the project, it is refused before it is opened (a pipeline file is code); the fifo and the folder
    // below show the regular-file check inside it.
    CHECK_THAT(e, Catch::Contains("pipeline.yaml:2:12: include '/dev/zero' reads /dev/zero, outside the project"));

    REQUIRE(mkfifo(t.path("fifo.yaml").c_str(), 0600) == 0); // opening it for reading would block
    t.write("pipeline.yaml", std::string("assetforge: 1\ninclude: [ ok.yaml, fifo.yaml ]\n") + kJobs);
    t.write("ok.yaml", "vars: { a: 1 }\n");
    e = limits_load_error(t.path("pipeline.yaml"));
    CHECK_THAT(e, Catch::Contains("pipeline.yaml:2:21: "));
    CHECK_THAT(e, Catch::Contains("fifo.yaml: not a regular file"));

    fs::create_directories(t.path("dir.yaml"));
    t.write("pipeline.yaml", std::string("assetforge: 1\ninclude: dir.yaml\n") + kJobs);
    CHECK_THAT(limits_load_error(t.path("pipeline.yaml")), Catch::Contains("dir.yaml: not a regular file"));

    // The pipeline file itself too.
    CHECK_THAT(limits_load_error("/dev/zero"), Catch::Contains("/dev/zero: not a regular file"));
}

TEST_CASE("pipeline files and includes over 16 MiB are refused", "[config][limits]") {
    TestProject t;
    t.write("big.yaml", "vars: { a: 1 }\n");
    fs::resize_file(t.path("big.yaml"), (16u << 20) + 1);
    t.write("pipeline.yaml", std::string("assetforge: 1\ninclude: big.yaml\n") + kJobs);
    std::string e = limits_load_error(t.path("pipeline.yaml"));
    CHECK_THAT(e, Catch::Contains("pipeline.yaml:2:10: "));
    CHECK_THAT(e, Catch::Contains("big.yaml: larger than 16 MiB"));

    t.write("pipeline.yaml", std::string("assetforge: 1\n") + kJobs);
    fs::resize_file(t.path("pipeline.yaml"), (16u << 20) + 1);
    CHECK_THAT(limits_load_error(t.path("pipeline.yaml")), Catch::Contains("larger than 16 MiB"));
}
