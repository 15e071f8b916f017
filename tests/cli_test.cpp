// The CLI's contract with scripts: exit codes 0 ok, 1 some input failed, 2 usage.
#include "cli_run.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

namespace {
using af::test::Run;
Run run(const std::string& args) { return af::test::run_cli(args); }

const std::string png = std::string(AF_TEST_DATA) + "/images/g_caustics.png";
} // namespace

TEST_CASE("exit codes") {
    CHECK(run("--version").code == 0);
    CHECK(run("").code == 2);
    CHECK(run("no-such-command").code == 2);
    CHECK(run("info").code == 2);
    CHECK(run("info --no-such-flag " + png).code == 2);
    CHECK(run("info " + png).code == 0);
    CHECK(run("info /nonexistent/file.dds").code == 1);
    CHECK(run("info " + png + " /nonexistent/file.dds").code == 1);
    CHECK(run("plugins").code == 0);
    CHECK(run("plugins --json").code == 0);
}

TEST_CASE("global limits refuse oversize inputs with a clear message") {
    Run r = run("--max-dimension 16 info " + png);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("limit: 512x512 exceeds --max-dimension 16"));
    CHECK(run("--max-dimension 1024 info " + png).code == 0);
    CHECK(run("--max-dimension x info " + png).code == 2);
    CHECK(run("--max-bogus 3 info " + png).code == 2);
}

TEST_CASE("every subcommand answers --help") {
    Run top = run("--help");
    CHECK(top.code == 0);
    for (const char* c : {"build", "status", "clean", "watch", "convert", "info", "compare", "plugins", "steps"}) {
        INFO(c);
        Run r = run(std::string(c) + " --help");
        CHECK(r.code == 0);
        CHECK_THAT(r.out, Catch::Contains("usage: assetforge"));
    }
}

TEST_CASE("info names the file and the problem") {
    Run r = run("info /nonexistent/file.dds");
    CHECK_THAT(r.out, Catch::Contains("/nonexistent/file.dds"));
    Run j = run("info --json " + png);
    CHECK_THAT(j.out, Catch::Contains("\"width\": 512"));
}

TEST_CASE("convert exposes the image operations") {
    const std::string dir = "/tmp/af-cli-convert-" + std::to_string(::getpid());
    std::string palm = std::string(AF_TEST_DATA) + "/images/a_palm_b.png";
    std::string rock = std::string(AF_TEST_DATA) + "/images/n_stk_generic_rock_crop128.png";
    REQUIRE(run("convert --resize 40x24 --mip-filter lanczos3 " + png + " " + dir + "/small.png").code == 0);
    CHECK_THAT(run("info " + dir + "/small.png").out, Catch::Contains("dimensions: 40x24"));
    Run dds = run("convert --format bc3 --mips --mip-filter mitchell --alpha-coverage 0.5 --wrap " + palm + " " + dir +
                  "/palm.dds");
    CHECK(dds.code == 0);
    CHECK_THAT(dds.out, Catch::Contains("BC3_UNORM"));
    CHECK(run("convert --normal-map --colorspace linear " + rock + " " + dir + "/rock.dds").out.find("BC5") !=
          std::string::npos);
    CHECK(run("convert --mip-filter bogus " + png + " " + dir + "/x.dds").code == 2);
    CHECK(run("convert --resize 12 " + png + " " + dir + "/x.dds").code == 2);
    CHECK(run("convert --wrap --clamp " + png + " " + dir + "/x.dds").code == 2);
    CHECK(run("convert --alpha-coverage 2 " + png + " " + dir + "/x.dds").code == 2);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("info on a truncated file prints its report and exits 1") {
    const std::string dir = "/tmp/af-cli-info-" + std::to_string(::getpid());
    REQUIRE(run("convert --format bc1 " + png + " " + dir + "/t.dds").code == 0);
    REQUIRE(std::system(("head -c 1000 " + dir + "/t.dds > " + dir + "/cut.dds").c_str()) == 0);
    Run r = run("info " + dir + "/cut.dds");
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("missing"));
    CHECK(run("info " + dir + "/t.dds").code == 0);
    std::system(("rm -rf " + dir).c_str());
}

TEST_CASE("convert takes XTF to VTF and back with the pixels intact") {
    const std::string dir = "/tmp/af-cli-xtf-" + std::to_string(::getpid());
    const std::string xtf =
        std::string(AF_SOURCE_DIR) + "/plugins/xtf/tests/data/bgra8888_64x64_mips/bgra8888_64x64_mips.xtf";
    REQUIRE(std::system(("mkdir -p " + dir).c_str()) == 0);
    REQUIRE(run("convert " + xtf + " " + dir + "/a.vtf").code == 0);
    REQUIRE(run("convert " + dir + "/a.vtf " + dir + "/b.xtf").code == 0);
    CHECK_THAT(run("info " + dir + "/a.vtf").out, Catch::Contains("version: 7.2"));
    REQUIRE(run("convert --all-surfaces " + xtf + " " + dir + "/orig.png").code == 0);
    REQUIRE(run("convert --all-surfaces " + dir + "/b.xtf " + dir + "/back.png").code == 0);
    for (int m = 0; m < 7; ++m) {
        std::string suffix = "_l0_f0_m" + std::to_string(m) + ".png";
        INFO(suffix);
        CHECK(std::system(("cmp -s " + dir + "/orig" + suffix + " " + dir + "/back" + suffix).c_str()) == 0);
    }
    std::system(("rm -rf " + dir).c_str());
}
