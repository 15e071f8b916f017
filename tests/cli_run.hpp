// Running the assetforge executable (AF_EXE) from a test, and reading back
// what it wrote.
#pragma once

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace af::test {

struct Run {
    int code;        // exit status, -1 when killed by a signal
    std::string out; // stdout and stderr interleaved, as a user sees them
};

// A shell command line as it is (environment assignments, other programs),
// stdout and stderr together.
inline Run run_shell(const std::string& cmd) {
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    REQUIRE(p);
    std::string out;
    char buf[4096];
    while (size_t n = fread(buf, 1, sizeof buf, p)) out.append(buf, n);
    int status = pclose(p);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// `assetforge ARGS` through the shell, in `dir` when given.
inline Run run_cli(const std::string& args, const std::filesystem::path& dir = {}) {
    std::string cmd = std::string(AF_EXE) + " " + args;
    if (!dir.empty()) cmd = "cd '" + dir.string() + "' && " + cmd;
    return run_shell(cmd);
}

struct MeasuredRun {
    int code;          // exit status, -1 when killed by a signal
    std::string out;   // stdout and stderr interleaved
    long peak_rss_kib; // the child's peak resident set (wait4's ru_maxrss)
};

// `assetforge ARGS` run directly (no shell in between), in `dir`, with its
// own peak RSS: wait4 reports the child's high-water mark.
inline MeasuredRun run_cli_measured(const std::vector<std::string>& args, const std::filesystem::path& dir) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    std::vector<std::string> all = {AF_EXE};
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        dup2(fds[1], 1);
        dup2(fds[1], 2);
        close(fds[1]);
        if (chdir(dir.c_str()) != 0) _exit(127);
        execv(argv[0], argv.data());
        _exit(127);
    }
    close(fds[1]);
    std::string out;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) out.append(buf, size_t(n));
    close(fds[0]);
    int status = 0;
    rusage ru{};
    REQUIRE(wait4(pid, &status, 0, &ru) == pid);
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out, ru.ru_maxrss};
}

// The same, with the folder first (tests that run many commands in one project).
inline Run run_in(const std::filesystem::path& dir, const std::string& args) { return run_cli(args, dir); }

inline std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

} // namespace af::test
