// Running the assetforge executable (AF_EXE) from a test, and reading back
// what it wrote.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/wait.h>

namespace af::test {

struct Run {
    int code;        // exit status, -1 when killed by a signal
    std::string out; // stdout and stderr interleaved, as a user sees them
};

// `assetforge ARGS` through the shell, in `dir` when given.
inline Run run_cli(const std::string& args, const std::filesystem::path& dir = {}) {
    std::string cmd = std::string(AF_EXE) + " " + args + " 2>&1";
    if (!dir.empty()) cmd = "cd '" + dir.string() + "' && " + cmd;
    FILE* p = popen(cmd.c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace af::test
