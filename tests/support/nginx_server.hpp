// A real nginx serving a Bazel-style HTTP cache for the length of a test (tests/support/nginx-cache.sh says
// which locations it has). Needs AF_NGINX_CACHE_SCRIPT defined to the script's path.
#pragma once

#include "../temp_dir.hpp"

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <sys/wait.h>
#include <vector>

namespace af::test {

class NginxServer {
  public:
    NginxServer() : dir_("af-nginx") {
        std::string out;
        const int status = run("start", &out);
        while (!out.empty() && (out.back() == '\n' || out.back() == '\r')) out.pop_back();
        if (status != 0 || out.rfind("http://", 0) != 0) {
            run("stop", nullptr);
            throw std::runtime_error("nginx did not start (" + out + "); error log:\n" + read(dir_ / "logs/error.log"));
        }
        url_ = out;
    }
    ~NginxServer() { run("stop", nullptr); }
    NginxServer(const NginxServer&) = delete;
    NginxServer& operator=(const NginxServer&) = delete;

    // http://127.0.0.1:PORT, no trailing '/'.
    const std::string& url() const { return url_; }
    const std::filesystem::path& dir() const { return dir_.path(); }
    // Where the root location keeps its files: cache_dir()/ac/<hash>, cache_dir()/cas/<hash>.
    std::filesystem::path cache_dir() const { return dir_ / "cache"; }

    // "METHOD URI STATUS CONNECTION REQUEST_ON_CONNECTION \"AUTHORIZATION\"" per request. nginx writes a line
    // after it has answered, so a test that just got its answer may have to wait for the line.
    std::vector<std::string> access_log() const {
        std::vector<std::string> lines;
        std::istringstream in(read(dir_ / "logs/access.log"));
        for (std::string line; std::getline(in, line);)
            if (line.find("/__probe") == std::string::npos) lines.push_back(line);
        return lines;
    }

    void write_file(const std::string& rel, const std::string& bytes) const {
        std::filesystem::create_directories((cache_dir() / rel).parent_path());
        std::ofstream(cache_dir() / rel, std::ios::binary) << bytes;
    }

  private:
    static std::string read(const std::filesystem::path& p) {
        std::ifstream in(p, std::ios::binary);
        return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
    }

    int run(const char* verb, std::string* out) const {
        const std::string cmd = std::string("bash '") + AF_NGINX_CACHE_SCRIPT + "' " + verb + " '" +
                                dir_.path().string() + "'" + (out ? "" : " >/dev/null");
        FILE* pipe = popen(cmd.c_str(), "r");
        if (!pipe) return -1;
        char buf[256];
        for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;)
            if (out) out->append(buf, n);
        const int status = pclose(pipe);
        return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    }

    TempDir dir_;
    std::string url_;
};

} // namespace af::test
