// PNG headers may declare any size up to 65536²; the decoder must not
// allocate for pixels the file cannot hold. Each case decodes in a forked
// child so its peak RSS is its own, whatever ran in this process before.
#include "core/png_io.hpp"

#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <zlib.h>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

using namespace af;

namespace {

std::vector<uint8_t> slurp(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

long max_rss_kib() {
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    return ru.ru_maxrss;
}

struct Outcome {
    std::string error;   // what decode_png threw ("" when it returned)
    long growth_kib = 0; // peak RSS of the child above its RSS before decoding
    double seconds = 0;
};

Outcome decode_in_child(const std::vector<uint8_t>& bytes) {
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        close(fds[0]);
        long before = max_rss_kib();
        auto t0 = std::chrono::steady_clock::now();
        std::string error;
        try {
            decode_png(bytes, "hostile.png");
        } catch (const std::exception& e) {
            error = e.what();
        }
        double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        std::string msg = std::to_string(max_rss_kib() - before) + " " + std::to_string(secs) + " " + error;
        if (write(fds[1], msg.data(), msg.size()) < 0) _exit(2);
        _exit(0);
    }
    close(fds[1]);
    std::string msg;
    char buf[4096];
    for (ssize_t n; (n = read(fds[0], buf, sizeof buf)) > 0;) msg.append(buf, size_t(n));
    close(fds[0]);
    int status = 0;
    waitpid(pid, &status, 0);
    REQUIRE(WIFEXITED(status));
    REQUIRE(WEXITSTATUS(status) == 0);
    Outcome o;
    size_t a = msg.find(' '), b = msg.find(' ', a + 1);
    REQUIRE(b != std::string::npos);
    o.growth_kib = std::stol(msg.substr(0, a));
    o.seconds = std::stod(msg.substr(a + 1, b - a - 1));
    o.error = msg.substr(b + 1);
    return o;
}

void put_be32(std::vector<uint8_t>& v, uint32_t x) {
    for (int s = 24; s >= 0; s -= 8) v.push_back(uint8_t(x >> s));
}

void put_chunk(std::vector<uint8_t>& png, const char* type, const std::vector<uint8_t>& data) {
    put_be32(png, uint32_t(data.size()));
    std::vector<uint8_t> body(type, type + 4);
    body.insert(body.end(), data.begin(), data.end());
    png.insert(png.end(), body.begin(), body.end());
    put_be32(png, uint32_t(crc32(0, body.data(), uInt(body.size()))));
}

std::vector<uint8_t> png_with(uint32_t w, uint32_t h, uint8_t depth, uint8_t ctype, const std::vector<uint8_t>& idat) {
    std::vector<uint8_t> png = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    std::vector<uint8_t> ihdr;
    put_be32(ihdr, w);
    put_be32(ihdr, h);
    ihdr.insert(ihdr.end(), {depth, ctype, 0, 0, 0});
    put_chunk(png, "IHDR", ihdr);
    put_chunk(png, "IDAT", idat);
    put_chunk(png, "IEND", {});
    return png;
}

} // namespace

TEST_CASE("a 69-byte PNG declaring 20000x20000 16-bit RGBA fails at once without allocating the image") {
    auto bytes = slurp(std::filesystem::path(AF_TEST_DATA) / "hostile" / "png_20000x20000_rgba16.png");
    REQUIRE(bytes.size() == 69);
    Outcome o = decode_in_child(bytes);
    INFO(o.error);
    CHECK(o.error.find("hostile.png") != std::string::npos);
    CHECK(o.error.find("20000x20000") != std::string::npos);
    CHECK(o.growth_kib < 64 * 1024);
    CHECK(o.seconds < 1.0);
}

TEST_CASE("a PNG whose image data stops early grows only with the rows it holds") {
    // 8192x8192 RGBA8 (256 MiB decoded). The IDAT is long enough to pass any
    // size check, but only its first 64 rows are real: a stored block with
    // inconsistent lengths follows, then padding.
    const uint32_t w = 8192, h = 8192, rows = 64;
    std::vector<uint8_t> raw(size_t(rows) * (1 + w * 4), 0);
    z_stream z{};
    REQUIRE(deflateInit(&z, 9) == Z_OK);
    std::vector<uint8_t> idat(deflateBound(&z, uLong(raw.size())) + 16);
    z.next_in = raw.data();
    z.avail_in = uInt(raw.size());
    z.next_out = idat.data();
    z.avail_out = uInt(idat.size());
    REQUIRE(deflate(&z, Z_SYNC_FLUSH) == Z_OK);
    idat.erase(idat.end() - std::ptrdiff_t(z.avail_out), idat.end()); // erase, not resize: never grows
    deflateEnd(&z);
    idat.insert(idat.end(), {0x00, 0x34, 0x12, 0x00, 0x00}); // stored block: NLEN is not ~LEN
    idat.resize(1 << 20, 0);
    Outcome o = decode_in_child(png_with(w, h, 8, 6, idat));
    INFO(o.error);
    CHECK(o.error.find("hostile.png") != std::string::npos);
    CHECK(o.growth_kib < 64 * 1024);
}

TEST_CASE("an all-zero image at deflate's best ratio still decodes") {
    // 16-bit 2048x2048 zeros compress about 1000:1: the size check must allow it.
    Texture img = rgba32f_picture(2048, 2048, false);
    PngWriteOptions opt;
    opt.bit_depth = 16;
    opt.compression = 9;
    auto bytes = encode_png(img, opt);
    CHECK(bytes.size() < 64 * 1024);
    Texture back = decode_png(bytes, "zeros.png");
    CHECK(back.desc.width == 2048);
    CHECK(back.desc.height == 2048);
    CHECK(floats(back)[floats(back).size() - 1] == 0.0f);
}
