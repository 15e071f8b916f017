#include "project.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <csignal>
#include <regex>
#include <spawn.h>
#include <sstream>
#include <sys/wait.h>

extern char** environ;

namespace fs = std::filesystem;

namespace af::test {

std::vector<std::string> files_under(const fs::path& dir) {
    std::vector<std::string> v;
    std::error_code ec;
    if (!fs::exists(dir, ec)) return v;
    for (const auto& e : fs::recursive_directory_iterator(dir))
        if (e.is_regular_file() || e.is_symlink()) v.push_back(e.path().lexically_relative(dir).generic_string());
    std::sort(v.begin(), v.end());
    return v;
}

std::string filled(std::string text, const std::string& marker, const std::string& with) {
    for (size_t at = 0; (at = text.find(marker, at)) != std::string::npos; at += with.size())
        text.replace(at, marker.size(), with);
    return text;
}

std::vector<std::string> lines_of(const std::string& text) {
    std::vector<std::string> v;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) v.push_back(l);
    return v;
}

std::set<std::string> pictures_in(const fs::path& dir) {
    static const std::regex picture(R"([0-9a-f]{16}\.(src|res|diff|alpha|src\.t|res\.t)\.png)");
    std::set<std::string> out;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec))
        if (std::regex_match(e.path().filename().string(), picture)) out.insert(e.path().filename().string());
    return out;
}

pid_t spawn_in(const fs::path& dir, const std::string& args, const fs::path& log) {
    std::string cmd = "cd '" + dir.string() + "' && exec " + AF_EXE + " " + args + " >'" + log.string() + "' 2>&1";
    std::string sh = "/bin/sh", dash_c = "-c";
    char* argv[] = {sh.data(), dash_c.data(), cmd.data(), nullptr};
    pid_t pid = 0;
    REQUIRE(posix_spawn(&pid, "/bin/sh", nullptr, nullptr, argv, environ) == 0);
    return pid;
}

Child::~Child() {
    if (reaped_) return;
    ::kill(pid_, SIGKILL);
    ::kill(pid_, SIGCONT);
    ::waitpid(pid_, nullptr, 0);
}

int Child::wait_exit() {
    int status = 0;
    REQUIRE(::waitpid(pid_, &status, 0) == pid_);
    reaped_ = true;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

} // namespace af::test
