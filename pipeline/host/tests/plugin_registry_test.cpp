#include "host/plugin_registry.hpp"

#include "assetforge/plugin.hpp"
#include "host/host_services.hpp"
#include "host/isolation/isolation.hpp"
#include "host/texture_io.hpp"

#include <catch2/catch.hpp>
#include <cstddef>
#include <cstring>
#include <dlfcn.h>
#include <fstream>
#include <link.h>
#include <unistd.h>

using namespace af;
using namespace af::host;
namespace fs = std::filesystem;

namespace {
// These cases test the in-process loader (the host's own plugins, --isolate none, and a worker's load): the test
// plugins sit outside the host's plugin folders, where the registry would otherwise load them sealed in a worker
// started from the assetforge executable (tests/plugin_loading_test.cpp covers that path).
[[maybe_unused]] const bool kInProcess = [] {
    isolation::settings().mode = isolation::Mode::None;
    return true;
}();

fs::path plugin(const char* name) { return fs::path(AF_TEST_PLUGIN_DIR) / (std::string(name) + ".so"); }

const LoadFailure* failure_for(const PluginRegistry& r, const fs::path& p) {
    for (const auto& f : r.failures())
        if (f.path == p) return &f;
    return nullptr;
}
} // namespace

TEST_CASE("a well-formed plugin loads and is queryable") {
    PluginRegistry r;
    REQUIRE(r.load_file(plugin("abi_good")));
    const LoadedPlugin& p = *r.plugins().back();
    CHECK(p.name == "abi_good");
    CHECK(p.version == "1.2.3");
    CHECK(p.api_major == AF_API_MAJOR);
    CHECK_FALSE(p.binary_hash == Hash128{});
    CHECK(r.container_by_name("goodfmt"));
    CHECK(r.command("hello"));
    CHECK_FALSE(r.command("nope"));
    CHECK(r.command("hello").item->run(services(), 1, nullptr) == 0);
}

TEST_CASE("a plugin built for another major version is refused with a message") {
    PluginRegistry r;
    CHECK_FALSE(r.load_file(plugin("abi_wrong_major")));
    auto* f = failure_for(r, plugin("abi_wrong_major"));
    REQUIRE(f);
    CHECK_THAT(f->reason, Catch::Contains("built for plugin API 2.0"));
    CHECK_THAT(f->reason, Catch::Contains("this host speaks 1."));
    CHECK(r.plugins().size() == 1); // only the built-in core
}

TEST_CASE("a library without the entry symbol is refused") {
    PluginRegistry r;
    CHECK_FALSE(r.load_file(plugin("abi_no_entry")));
    REQUIRE(failure_for(r, plugin("abi_no_entry")));
    CHECK_THAT(failure_for(r, plugin("abi_no_entry"))->reason, Catch::Contains("assetforge_plugin_entry"));
}

TEST_CASE("a library with an unresolved symbol is refused, naming the symbol") {
    PluginRegistry r;
    CHECK_FALSE(r.load_file(plugin("abi_unresolved")));
    REQUIRE(failure_for(r, plugin("abi_unresolved")));
    CHECK_THAT(failure_for(r, plugin("abi_unresolved"))->reason, Catch::Contains("af_symbol_that_does_not_exist"));
}

TEST_CASE("a plugin built against an older minor with smaller tables loads") {
    PluginRegistry r;
    REQUIRE(r.load_file(plugin("abi_old_minor")));
    auto c = r.container_by_name("oldfmt");
    REQUIRE(c);
    CHECK(c.item->info == nullptr); // beyond its struct_size: zero
    CHECK(c.item->dims == nullptr);
    CHECK(c.plugin->commands.empty());
    const uint8_t head[4] = {'O', 'L', 'D', '!'};
    CHECK(r.container_for("x.bin", head, 4, 4).item == c.item);
}

TEST_CASE("a container built before API 1.4 has no dims, whatever lies past its table") {
    // A 1.3 plugin's table ends before `dims`; the bytes after it are the plugin's other statics.
    alignas(af_container) unsigned char bytes[sizeof(af_container)];
    std::memset(bytes, 0xab, sizeof bytes);
    af_container older{};
    older.struct_size = uint32_t(offsetof(af_container, dims));
    older.api_major = AF_API_MAJOR;
    older.api_minor = 3;
    std::memcpy(bytes, &older, offsetof(af_container, dims));
    const af_container seen = af::sdk::read_table<af_container>(bytes);
    CHECK(seen.dims == nullptr);
}

TEST_CASE("an older minor's stage and container declare nothing: their parameters go unchecked") {
    PluginRegistry r;
    REQUIRE(r.load_file(plugin("abi_old_minor")));
    auto s = r.stage("old.passthrough");
    REQUIRE(s);
    CHECK(s.item->params == nullptr);
    CHECK(s.item->param_decls == nullptr); // beyond its struct_size: zero
    CHECK(s.item->meta_keys == nullptr);
    auto c = r.container_by_name("oldfmt");
    REQUIRE(c);
    CHECK(c.item->read_options == nullptr);
    CHECK(c.item->meta_keys == nullptr);
}

TEST_CASE("a malformed parameter declaration is refused, naming the stage and the parameter") {
    PluginRegistry r;
    CHECK_FALSE(r.load_file(plugin("abi_bad_params")));
    REQUIRE(failure_for(r, plugin("abi_bad_params")));
    CHECK_THAT(failure_for(r, plugin("abi_bad_params"))->reason,
               Catch::Contains("stage bad.stage, parameter 'mode': an enum without choices"));
}

TEST_CASE("the built-in PNG container declares its options") {
    PluginRegistry r;
    auto c = r.container_by_name("png");
    REQUIRE(c);
    REQUIRE(c.item->read_options != nullptr);
    CHECK(c.item->read_option_count == 0);
    REQUIRE(c.item->write_option_count == 8);
    CHECK(std::string(c.item->write_options[3]->name) == "bit_depth");
    CHECK(std::string(c.item->write_options[6]->name) == "level"); // 0-12, libdeflate
    CHECK(std::string(c.item->write_options[7]->name) == "filter");
    REQUIRE(c.item->meta_keys != nullptr);
    CHECK(c.item->meta_keys[0] == nullptr);
}

TEST_CASE("the same plugin name twice keeps the first") {
    PluginRegistry r;
    REQUIRE(r.load_file(plugin("abi_good")));
    CHECK_FALSE(r.load_file(plugin("abi_good_copy")));
    CHECK_THAT(failure_for(r, plugin("abi_good_copy"))->reason, Catch::Contains("already loaded"));
}

TEST_CASE("an accepted plugin stays mapped after its registry is gone, a refused one is unloaded") {
    // Loaded from sealed copies, which the loader knows as /proc/self/fd/N, not by the files' paths.
    auto copies_mapped = [] {
        int n = 0;
        dl_iterate_phdr(
            [](dl_phdr_info* info, size_t, void* count) {
                if (std::string_view(info->dlpi_name).starts_with("/proc/self/fd/")) ++*static_cast<int*>(count);
                return 0;
            },
            &n);
        return n;
    };
    auto mapped = [](const fs::path& p) {
        void* h = ::dlopen(p.c_str(), RTLD_NOW | RTLD_NOLOAD);
        if (h) ::dlclose(h);
        return h != nullptr;
    };
    const int before = copies_mapped();
    const void* code = nullptr; // a function of the accepted plugin's
    {
        PluginRegistry r;
        REQUIRE(r.load_file(plugin("abi_good")));
        CHECK_FALSE(r.load_file(plugin("abi_wrong_major")));
        code = reinterpret_cast<const void*>(r.plugins().back()->containers.at(0).read);
        CHECK(r.plugins().back()->image_fd >= 0);
    }
    Dl_info info{};
    CHECK(::dladdr(code, &info) != 0);
    CHECK(copies_mapped() == before + 1); // the refused one is gone
    // The files themselves were never handed to the loader.
    CHECK_FALSE(mapped(plugin("abi_good")));
    CHECK_FALSE(mapped(plugin("abi_wrong_major")));
}

TEST_CASE("a plugin runs, and is known, by the bytes it was loaded from, whatever becomes of its file") {
    const fs::path dir = fs::temp_directory_path() / ("af-rewritten-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const fs::path file = dir / "rewritten.so";
    fs::copy_file(plugin("abi_good"), file, fs::copy_options::overwrite_existing);
    PluginRegistry r;
    REQUIRE(r.load_file(file));
    const LoadedPlugin& p = *r.plugins().back();
    const Hash128 loaded = hash_file(plugin("abi_good"));
    CHECK(p.binary_hash == loaded);
    // Rewritten in place (the same inode, as cp does) with another library: pages of a mapped file would change.
    std::ifstream other(plugin("abi_old_minor"), std::ios::binary);
    std::ofstream(file, std::ios::binary | std::ios::trunc) << other.rdbuf();
    CHECK(hash_file(file) != loaded);
    CHECK(p.binary_hash == loaded);
    const uint8_t good[8] = {'G', 'O', 'O', 'D', 1, 2, 3, 4};
    CHECK(read_texture_bytes(r, "t.good", good).texture.data == std::vector<uint8_t>{1, 2, 3, 4});
    std::error_code ec;
    fs::remove_all(dir, ec);
}

TEST_CASE("probing prefers magic bytes over the extension") {
    PluginRegistry r;
    REQUIRE(r.load_file(plugin("abi_good")));
    const uint8_t good[8] = {'G', 'O', 'O', 'D', 1, 2, 3, 4};
    const uint8_t png[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
    CHECK(std::string(r.container_for("a.png", good, 8, 8).item->name) == "goodfmt");
    CHECK(std::string(r.container_for("a.good", png, 8, 8).item->name) == "png");
    CHECK(std::string(r.container_for("a.good", png, 2, 2).item->name) == "goodfmt");
    CHECK_FALSE(r.container_for("a.xyz", png, 2, 2));
}

TEST_CASE("reading through a plugin returns host-owned textures, errors name the file and offset") {
    PluginRegistry r;
    REQUIRE(r.load_file(plugin("abi_good")));
    const uint8_t good[8] = {'G', 'O', 'O', 'D', 1, 2, 3, 4};
    auto res = read_texture_bytes(r, "t.good", good);
    CHECK(res.container == "goodfmt");
    CHECK(res.texture.desc.width == 1);
    CHECK(res.texture.data == std::vector<uint8_t>{1, 2, 3, 4});
    const uint8_t bad[5] = {'G', 'O', 'O', 'D', 1};
    try {
        read_texture_bytes(r, "bad.good", bad);
        FAIL("no error");
    } catch (const sdk::Error& e) {
        CHECK_THAT(e.what(), Catch::StartsWith("bad.good: offset 5: GOOD files are 8 bytes"));
    }
    const uint8_t junk[4] = {1, 2, 3, 4};
    CHECK_THROWS_WITH(read_texture_bytes(r, "junk.bin", junk), Catch::Contains("junk.bin: unknown format"));
}

TEST_CASE("the plugin directory is searched and failures are recorded, not fatal") {
    PluginRegistry r;
    r.load_directory(AF_TEST_PLUGIN_DIR);
    CHECK(r.container_by_name("goodfmt"));
    CHECK(r.container_by_name("oldfmt"));
    CHECK(r.failures().size() >= 3);
}

TEST_CASE("PNG goes through the built-in container both ways") {
    PluginRegistry r;
    Texture t(TextureDesc{FMT_R8G8B8A8_UNORM_SRGB, 3, 2});
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i * 11);
    auto bytes = encode_texture(r, "png", t);
    auto back = read_texture_bytes(r, "x.png", bytes);
    CHECK(back.texture.desc.format == FMT_R8G8B8A8_UNORM_SRGB);
    CHECK(back.texture.data == t.data);
    // Formats wider than 8 bits come back as 16-bit PNGs.
    Texture w(TextureDesc{FMT_R16G16B16A16_UNORM, 2, 2});
    for (size_t i = 0; i < w.data.size(); ++i) w.data[i] = uint8_t(i * 37);
    auto wide = read_texture_bytes(r, "w.png", encode_texture(r, "png", w));
    CHECK(wide.texture.desc.format == FMT_R16G16B16A16_UNORM);
    CHECK(wide.texture.data == w.data);
}

TEST_CASE("convert_texture changes every surface's format") {
    PluginRegistry r;
    Texture t(TextureDesc{FMT_R8G8B8A8_UNORM, 4, 4, 1, 3, 2});
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i);
    Texture b = convert_texture(r, t, FMT_B8G8R8A8_UNORM);
    CHECK(b.desc.mips == 3);
    CHECK(b.data.size() == t.data.size());
    CHECK(b.data[0] == t.data[2]);
    Texture back = convert_texture(r, b, FMT_R8G8B8A8_UNORM);
    CHECK(back.data == t.data);
    CHECK_THROWS_WITH(convert_texture(r, t, FMT_BC1_UNORM), Catch::Contains("no codec plugin encodes BC1_UNORM"));
}

TEST_CASE("a library cut short is refused by name with the offset, never handed to the loader") {
    const fs::path whole = plugin("abi_good_copy");
    const auto size = fs::file_size(whole);
    const fs::path dir = fs::temp_directory_path() / ("af-truncated-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    // Cut inside the section headers, inside the last segment, inside the program headers, inside the ELF header.
    for (const uint64_t keep : {uint64_t(size - 16), uint64_t(size / 2), uint64_t(100), uint64_t(10)}) {
        INFO("kept " << keep << " of " << size << " bytes");
        const fs::path cut = dir / ("cut" + std::to_string(keep) + ".so");
        fs::copy_file(whole, cut, fs::copy_options::overwrite_existing);
        fs::resize_file(cut, keep);
        PluginRegistry r;
        CHECK_FALSE(r.load_file(cut));
        const LoadFailure* f = failure_for(r, cut);
        REQUIRE(f != nullptr);
        CHECK_THAT(f->reason, Catch::Contains("damaged at byte"));
    }
    const fs::path text = dir / "notes.so";
    std::ofstream(text) << "not a library at all, but long enough to hold an ELF header's worth of bytes......";
    PluginRegistry r;
    CHECK_FALSE(r.load_file(text));
    CHECK_THAT(failure_for(r, text)->reason, Catch::Contains("not an ELF file"));
    fs::remove_all(dir);
}
