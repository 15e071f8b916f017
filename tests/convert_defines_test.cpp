// `convert -O KEY=VALUE`: container options reach the output's writer, or the
// input's reader when the writer does not take the key; values are checked as
// a pipeline's are; and the summary says what the written file holds.
#include "cli_run.hpp"
#include "temp_dir.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>

namespace fs = std::filesystem;
using af::test::run_cli;
using af::test::TempDir;

namespace {

const fs::path kOpaque = fs::path(AF_TEST_DATA) / "images" / "n_stk_generic_rock_crop128.png";

std::string quoted_arg(const fs::path& p) { return "'" + p.string() + "'"; }

} // namespace

TEST_CASE("convert -O: a writer option changes the file written", "[convert][define]") {
    TempDir t("af-define");
    auto stored = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "stored.png") + " -O level=0");
    INFO(stored.out);
    REQUIRE(stored.code == 0);
    auto small = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "small.png") + " --define level=9");
    INFO(small.out);
    REQUIRE(small.code == 0);
    // Level 0 stores the rows: at least the raw RGBA size of 128x128.
    CHECK(fs::file_size(t / "stored.png") >= 128 * 128 * 3);
    CHECK(fs::file_size(t / "small.png") < fs::file_size(t / "stored.png"));

    auto legacy =
        run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "legacy.dds") + " --format bc1 -O dx10=never");
    auto dx10 =
        run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "dx10.dds") + " --format bc1 -O dx10=always");
    INFO(legacy.out << dx10.out);
    REQUIRE(legacy.code == 0);
    REQUIRE(dx10.code == 0);
    CHECK(fs::file_size(t / "dx10.dds") == fs::file_size(t / "legacy.dds") + 20); // the DX10 extension header
    // -O is given last: it wins over the flag that sets the same option.
    auto both = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "both.dds") +
                        " --format bc1 --dx10 never -O dx10=always");
    REQUIRE(both.code == 0);
    CHECK(fs::file_size(t / "both.dds") == fs::file_size(t / "dx10.dds"));
}

TEST_CASE("convert -O: a key the writer does not take goes to the reader", "[convert][define]") {
    TempDir t("af-define-read");
    REQUIRE(run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "whole.dds") + " --format bc1").code == 0);
    // Cut inside the last mip levels: a strict read fails, a permissive one keeps the whole surfaces.
    const auto size = fs::file_size(t / "whole.dds");
    fs::copy_file(t / "whole.dds", t / "cut.dds");
    fs::resize_file(t / "cut.dds", size - 40);
    auto strict = run_cli("convert " + quoted_arg(t / "cut.dds") + " " + quoted_arg(t / "a.png"));
    INFO(strict.out);
    CHECK(strict.code == 1);
    auto permissive =
        run_cli("convert " + quoted_arg(t / "cut.dds") + " " + quoted_arg(t / "b.png") + " -O permissive=true");
    INFO(permissive.out);
    CHECK(permissive.code == 0);
    CHECK(fs::exists(t / "b.png"));
}

TEST_CASE("convert -O: unknown keys and bad values are usage errors naming what is taken", "[convert][define]") {
    TempDir t("af-define-bad");
    auto typo = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "x.png") + " -O levle=3");
    INFO(typo.out);
    CHECK(typo.code == 2);
    CHECK_THAT(typo.out, Catch::Contains("the png writer takes") && Catch::Contains("level") &&
                             Catch::Contains("did you mean 'level'"));
    CHECK_FALSE(fs::exists(t / "x.png"));
    auto range = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "x.png") + " -O level=99");
    INFO(range.out);
    CHECK(range.code == 2);
    CHECK_THAT(range.out, Catch::Contains("99") && Catch::Contains("level"));
    auto shape = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "x.png") + " -O level");
    INFO(shape.out);
    CHECK(shape.code == 2);
    CHECK_THAT(shape.out, Catch::Contains("KEY=VALUE"));
    auto choice = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "x.dds") + " -O dx10=sometimes");
    INFO(choice.out);
    CHECK(choice.code == 2);
    CHECK_THAT(choice.out, Catch::Contains("always"));
}

TEST_CASE("convert: the summary says what the written file holds", "[convert][define]") {
    TempDir t("af-define-summary");
    // XTF chooses its own format: the summary names what it stored, read back, not only what was asked.
    auto x = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "a.xtf") + " --format bc1");
    INFO(x.out);
    REQUIRE(x.code == 0);
    auto info = run_cli("info " + quoted_arg(t / "a.xtf"));
    REQUIRE(info.code == 0);
    CHECK_THAT(info.out, Catch::Contains("DXT1"));
    CHECK_THAT(x.out, Catch::Contains("BC1_UNORM") && Catch::Contains("the xtf writer's choice for DXT1"));
    auto d = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "a.dds") + " --format bc7 --no-mips");
    INFO(d.out);
    REQUIRE(d.code == 0);
    CHECK_THAT(d.out, Catch::Contains("BC7_UNORM") && Catch::Contains("1 mip"));
}

TEST_CASE("convert -O: XTF's writer and reader options from the command line", "[convert][define][xtf]") {
    TempDir t("af-define-xtf");
    auto with = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "with.xtf") + " --format bc1");
    auto without = run_cli("convert " + quoted_arg(kOpaque) + " " + quoted_arg(t / "without.xtf") +
                           " --format bc1 -O fallback=none");
    INFO(with.out << without.out);
    REQUIRE(with.code == 0);
    REQUIRE(without.code == 0);
    CHECK(fs::file_size(t / "without.xtf") < fs::file_size(t / "with.xtf"));
    // `image` is the XTF reader's: the PNG writer does not take it, so it reaches the reader.
    auto fallback =
        run_cli("convert " + quoted_arg(t / "with.xtf") + " " + quoted_arg(t / "fallback.png") + " -O image=fallback");
    INFO(fallback.out);
    REQUIRE(fallback.code == 0);
    auto info = run_cli("info " + quoted_arg(t / "fallback.png"));
    INFO(info.out);
    CHECK_THAT(info.out, !Catch::Contains("128x128"));
    auto none =
        run_cli("convert " + quoted_arg(t / "without.xtf") + " " + quoted_arg(t / "none.png") + " -O image=fallback");
    INFO(none.out);
    CHECK(none.code != 0); // a file without a fallback image says so, naming the file
    CHECK_THAT(none.out, Catch::Contains("without.xtf"));
}
