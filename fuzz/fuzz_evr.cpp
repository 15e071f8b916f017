// Echo VR package sets (plugins/evr) on arbitrary bytes: the manifest reader
// alone, then the whole set on disk (open, verify every frame, extract), then
// the writer: a set the reader accepted, repacked with one file replaced,
// must give a manifest the reader accepts again (a writer invariant).
//
// Input: u32 manifest size, the manifest, u8 part count (1 + n % 4), one u32
// size for every part but the last, then the parts' bytes (the last takes the
// rest). Sizes past the input are clipped.
#include "evr_reader.hpp"
#include "package_set.hpp"
#include "repack.hpp"
#include "set_extract.hpp"

#include "assetforge/error.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <unistd.h>

namespace fs = std::filesystem;

namespace {

struct Cursor {
    const uint8_t* p;
    size_t n;
    uint32_t u32() {
        uint32_t v = 0;
        for (int i = 0; i < 4 && n; ++i, ++p, --n) v |= uint32_t(*p) << (8 * i);
        return v;
    }
    uint8_t u8() { return n ? (--n, *p++) : 0; }
    std::span<const uint8_t> take(size_t k) {
        k = std::min(k, n);
        std::span<const uint8_t> s(p, k);
        p += k, n -= k;
        return s;
    }
};

void write(const fs::path& p, std::span<const uint8_t> b) {
    std::ofstream(p, std::ios::binary | std::ios::trunc)
        .write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
}

// Small limits: hostile lengths meet the reader's checks, not the fuzzer's RSS limit.
const af::evr::Limits kLimits{uint64_t(16) << 20, uint64_t(16) << 20};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    Cursor c{data, size};
    const auto manifest = c.take(c.u32());
    const int parts = 1 + c.u8() % 4;
    std::vector<std::span<const uint8_t>> part(parts);
    std::vector<uint32_t> sizes(parts - 1);
    for (auto& s : sizes) s = c.u32();
    for (int i = 0; i + 1 < parts; ++i) part[i] = c.take(sizes[i]);
    part[parts - 1] = c.take(c.n);

    try {
        af::evr::read_manifest(manifest, "m", kLimits, [](const std::string&) {});
    } catch (const af::sdk::Error&) {
        return 0; // the set cannot open either
    }
    static const fs::path root = fs::temp_directory_path() / ("af-fuzz-evr-" + std::to_string(getpid()));
    fs::remove_all(root);
    fs::create_directories(root / "manifests");
    fs::create_directories(root / "packages");
    write(root / "manifests" / "s", manifest);
    for (int i = 0; i < parts; ++i) write(root / "packages" / ("s_" + std::to_string(i)), part[i]);
    try {
        const af::evr::PackageSet set(af::evr::locate_set(root, "s"), kLimits, [](const std::string&) {});
        af::evr::verify_set(
            set, nullptr, [](const std::string&) {}, [](const std::string&) {});
        if (set.manifest().files.size() <= 256) {
            af::evr::ExtractOptions o;
            o.out = root / "out";
            o.groups = set.manifest().files.size() % 2;
            af::evr::extract_set(set, o, nullptr, [](const std::string&) {});
            std::vector<af::evr::TreeEntry> repl;
            if (!set.manifest().files.empty()) {
                const auto& f = set.manifest().files[0];
                af::evr::TreeEntry e;
                e.type = f.type;
                e.file = f.file;
                e.ext = ".bin";
                e.where = "fuzz";
                e.bytes.assign(manifest.begin(), manifest.begin() + std::min<size_t>(manifest.size(), 300));
                if (f.type != af::evr::kTypeTextureMeta) repl.push_back(std::move(e));
            }
            const auto r = af::evr::repack_set(set, std::move(repl), {}, nullptr, [](const std::string&) {});
            try {
                af::evr::read_manifest(r.image.manifest, "repacked", {~uint64_t(0), ~uint64_t(0)}, nullptr);
            } catch (const af::sdk::Error& e) {
                fprintf(stderr, "the repacked manifest fails the reader: %s\n", e.what());
                abort();
            }
        }
    } catch (const af::sdk::Error&) {
    }
    return 0;
}
