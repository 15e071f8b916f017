#include "test_support.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/write_texture.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <random>
#include <stdexcept>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;

namespace dds_test {

fs::path data_dir() { return DDS_TEST_DATA; }

std::vector<fs::path> corpus_files() {
    std::vector<fs::path> out;
    for (const auto& e : fs::directory_iterator(data_dir()))
        if (e.path().extension() == ".dds") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

std::vector<uint8_t> read_file(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    if (!f) throw std::runtime_error("cannot open " + p.string());
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

void write_file(const fs::path& p, const std::vector<uint8_t>& bytes) {
    std::ofstream f(p, std::ios::binary);
    f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
    if (!f) throw std::runtime_error("cannot write " + p.string());
}

ScratchDir::ScratchDir(const std::string& tag) {
    std::random_device rd;
    path =
        fs::temp_directory_path() / ("dds_test_" + tag + "_" + std::to_string(getpid()) + "_" + std::to_string(rd()));
    fs::create_directories(path);
}
ScratchDir::~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
}

std::string quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

RunResult run(const std::string& command) {
    RunResult r;
    FILE* p = popen((command + " 2>&1").c_str(), "r");
    if (!p) return r;
    std::array<char, 4096> buf;
    size_t n;
    while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) r.out.append(buf.data(), n);
    int st = pclose(p);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    return r;
}

std::string tool_missing(const char* exe) {
    if (access(exe, X_OK) != 0) return std::string(exe) + " is not installed";
    return "";
}

std::string python_pillow_missing() {
    if (access(kPython, X_OK) != 0) return std::string(kPython) + " is not installed";
    if (run(std::string(kPython) + " -c 'import PIL.DdsImagePlugin'").status != 0)
        return "Pillow (python3-pil) is not installed";
    return "";
}

af::Texture random_texture(const af::TextureDesc& d, uint32_t seed) {
    af::Texture t(d);
    std::mt19937 rng(seed);
    for (auto& b : t.data) b = uint8_t(rng());
    return t;
}

} // namespace dds_test

extern "C" const af_plugin* assetforge_plugin_entry(const af_host*);

namespace dds_test {

const af_container* dds_container() { return assetforge_plugin_entry(nullptr)->containers[0]; }

std::vector<uint8_t> write_dds(const af::Texture& tex, af::dds::Dx10Mode mode) {
    const af::sdk::TextureView c(tex);
    af::sdk::OptionList options;
    options.set("dx10", mode == af::dds::Dx10Mode::Always  ? "always"
                        : mode == af::dds::Dx10Mode::Never ? "never"
                                                           : "auto");
    af_options view = options.view();
    af::sdk::VectorSink out;
    af_sink sink = out.sink();
    af_error err{};
    af_status s = dds_container()->write(nullptr, c.get(), &view, &sink, &err);
    if (s != AF_OK) throw af::sdk::Error(s, err.message, err.offset);
    return std::move(out.bytes);
}

} // namespace dds_test
