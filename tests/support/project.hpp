// What the end-to-end build tests share about a scratch project: where the
// sample inputs live, what a build left in a folder, and a build running in
// the background.
#pragma once

#include <filesystem>
#include <set>
#include <string>
#include <sys/types.h>
#include <vector>

namespace af::test {

// Sample inputs in the source tree, with a trailing slash: kBcData + "name.png".
inline const std::string kBcData = std::string(AF_SOURCE_DIR) + "/plugins/bc/tests/data/";
inline const std::string kDdsData = std::string(AF_SOURCE_DIR) + "/plugins/dds/tests/data/";
inline const std::string kPagesData = std::string(AF_SOURCE_DIR) + "/plugins/vtpages/tests/data/";
// A 128² PNG that builds, for tests about the names around it.
inline const std::filesystem::path kRockImage =
    std::filesystem::path(AF_TEST_DATA) / "images" / "n_stk_generic_rock_crop128.png";

// One job, "textures": mips of every src/*.png into out/{stem}.dds. Ends
// with a newline, so that more jobs may follow.
inline constexpr const char* kMipsPipeline = R"(assetforge: 1
jobs:
  textures:
    inputs: "src/*.png"
    steps: [ mips ]
    output: "out/{stem}.dds"
)";

// The files below `dir`, relative and sorted; links count as entries even
// when they point nowhere. None when `dir` does not exist.
std::vector<std::string> files_under(const std::filesystem::path& dir);

// TEXT with every MARKER replaced by WITH (which may be empty): one pipeline
// written with and without the line a test is about.
std::string filled(std::string text, const std::string& marker, const std::string& with);

// The lines of a command's output.
std::vector<std::string> lines_of(const std::string& text);

// Names of the report's pictures ("<16 hex>.<kind>.png") in `dir`.
std::set<std::string> pictures_in(const std::filesystem::path& dir);

// `assetforge ARGS` in DIR in the background, stdout and stderr to LOG. The
// returned pid is assetforge's own (the shell execs it).
pid_t spawn_in(const std::filesystem::path& dir, const std::string& args, const std::filesystem::path& log);

// A background build; killed (even if paused) and reaped if the test stops early.
class Child {
  public:
    explicit Child(pid_t pid) : pid_(pid) {}
    Child(const Child&) = delete;
    Child& operator=(const Child&) = delete;
    ~Child();
    pid_t pid() const { return pid_; }
    // The exit status, -1 when killed by a signal.
    int wait_exit();

  private:
    pid_t pid_;
    bool reaped_ = false;
};

} // namespace af::test
