// What the host takes from a worker running a plugin stage (host/isolation/stage_replies.hpp): each emitted item
// is checked before the engine's emit sees it. Each case is a lie a stage's worker may tell; none may reach the
// engine, crash the host (a mapping past a file's end is SIGBUS) or make it allocate what the message claims.
#include "host/isolation/stage_replies.hpp"
#include "host/isolation/stage_wire.hpp"
#include "host/isolation/wire.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <string>
#include <vector>

namespace iso = af::host::isolation;

namespace {

int memfd_of(const std::string& bytes, bool sealable = true) {
    const int fd = ::memfd_create("test", MFD_CLOEXEC | (sealable ? MFD_ALLOW_SEALING : 0));
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(bytes.size())) == 0);
    if (!bytes.empty()) REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), 0) == ssize_t(bytes.size()));
    return fd;
}

struct Emitted {
    std::vector<std::string> names, bytes, meta;
    std::vector<uint32_t> widths;
    static af_status emit(void* ctx, const af_item* it) {
        auto* e = static_cast<Emitted*>(ctx);
        e->names.emplace_back(it->name ? it->name : "");
        for (uint32_t i = 0; i < it->meta_count; ++i)
            e->meta.push_back(std::string(it->meta[i].key) + "=" + it->meta[i].value);
        if (it->texture) {
            e->widths.push_back(it->texture->width);
            e->bytes.emplace_back(reinterpret_cast<const char*>(it->texture->data), it->texture->data_size);
        } else {
            e->bytes.emplace_back(reinterpret_cast<const char*>(it->bytes), it->size);
        }
        return AF_OK;
    }
};

struct Call {
    Emitted got;
    af_stage_io io{};
    iso::EmitAllowance left{1 << 20, 100};
    af_error e{};
    Call() {
        af::sdk::init_header(io);
        io.ctx = &got;
        io.emit = Emitted::emit;
    }
    af_status take(iso::Writer& w, std::vector<int> fds) {
        iso::Message m;
        m.op = iso::Op::Emit;
        m.body = w.bytes();
        m.fds = std::move(fds);
        const af_status st = iso::emitted_item(m, "liar", &io, left, &e);
        CHECK(m.fds.empty()); // every descriptor consumed
        return st;
    }
};

iso::Writer bytes_item(const std::string& name, uint64_t size) {
    iso::Writer w;
    w.str(name).u32(1).str("k").str("v").u32(uint32_t(iso::ItemKind::Bytes)).u64(size);
    return w;
}

// A texture item's description: RGBA8, w x h, `mips` levels, `data` and `palette` bytes claimed.
iso::Writer texture_item(uint32_t format, uint32_t w, uint32_t h, uint32_t mips, uint64_t data, uint64_t palette,
                         iso::ItemKind kind = iso::ItemKind::Texture) {
    iso::Writer t;
    t.str("t.png").u32(0).u32(uint32_t(kind));
    t.u32(format).u32(w).u32(h).u32(1).u32(mips).u32(1).u32(1).u32(0).u32(0).u64(data).u64(palette).u32(0);
    return t;
}

} // namespace

TEST_CASE("stage reply: an emitted bytes item that holds together reaches the engine's emit") {
    Call c;
    iso::Writer w = bytes_item("a.bin", 5);
    REQUIRE(c.take(w, {memfd_of("hello")}) == AF_OK);
    REQUIRE(c.got.names.size() == 1);
    CHECK(c.got.names[0] == "a.bin");
    CHECK(c.got.bytes[0] == "hello");
    CHECK(c.got.meta == std::vector<std::string>{"k=v"});
    CHECK(c.left.bytes == (1u << 20) - 5);
    CHECK(c.left.items == 99);
}

TEST_CASE("stage reply: an emitted texture that holds together reaches the engine's emit") {
    Call c;
    iso::Writer w = texture_item(af::FMT_R8G8B8A8_UNORM, 2, 2, 1, 16, 0);
    REQUIRE(c.take(w, {memfd_of(std::string(16, 'x'))}) == AF_OK);
    REQUIRE(c.got.widths == std::vector<uint32_t>{2});
    CHECK(c.got.bytes[0] == std::string(16, 'x'));
}

TEST_CASE("stage reply: a small item inside its message reaches the engine's emit, and one cut short does not") {
    Call c;
    iso::Writer w;
    w.str("a.bin").u32(0).u32(uint32_t(iso::ItemKind::BytesInline)).u64(5).raw("hello", 5);
    REQUIRE(c.take(w, {}) == AF_OK);
    REQUIRE(c.got.bytes == std::vector<std::string>{"hello"});
    CHECK(c.left.bytes == (1u << 20) - 5);

    iso::Writer t = texture_item(af::FMT_R8G8B8A8_UNORM, 2, 2, 1, 16, 0, iso::ItemKind::TextureInline);
    t.raw(std::string(16, 't').data(), 16);
    REQUIRE(c.take(t, {}) == AF_OK);
    CHECK(c.got.bytes.back() == std::string(16, 't'));

    iso::Writer cut;
    cut.str("b.bin").u32(0).u32(uint32_t(iso::ItemKind::BytesInline)).u64(16u << 20).raw("abc", 3);
    c.left.bytes = uint64_t(1) << 30;
    CHECK(c.take(cut, {}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("its bytes is cut short"));
    iso::Writer longer;
    longer.str("c.bin").u32(0).u32(uint32_t(iso::ItemKind::BytesInline)).u64(2).raw("abc", 3);
    CHECK(c.take(longer, {}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("1 bytes past its end"));
    CHECK(c.got.bytes.size() == 2);
}

TEST_CASE("stage reply: an item claiming more bytes than its memory file holds is refused, not mapped") {
    Call c;
    c.left.bytes = uint64_t(1) << 30; // within the budget: only the file's size can refuse it
    iso::Writer w = bytes_item("a.bin", 16u << 20);
    CHECK(c.take(w, {memfd_of(std::string(4096, 'x'))}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("plugin 'liar' worker answered badly") &&
                                Catch::Contains("not a sealed memory file of the size claimed"));
    CHECK(c.got.names.empty());
}

TEST_CASE("stage reply: an item without its descriptor, or with a pipe for one, is refused") {
    Call c;
    iso::Writer w = bytes_item("a.bin", 4);
    CHECK(c.take(w, {}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("no descriptor for its bytes"));
    int p[2];
    REQUIRE(::pipe(p) == 0);
    ::close(p[1]);
    CHECK(c.take(w, {p[0]}) == AF_ERR_INTERNAL);
    CHECK(c.got.names.empty());
}

TEST_CASE("stage reply: a texture whose data disagrees with its description is refused") {
    Call c;
    iso::Writer small = texture_item(af::FMT_R8G8B8A8_UNORM, 64, 64, 1, 16, 0);
    CHECK(c.take(small, {memfd_of(std::string(16, 'x'))}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("its description needs 16384"));
    iso::Writer mips = texture_item(af::FMT_R8G8B8A8_UNORM, 2, 2, 0xffffffffu, 16, 0);
    CHECK(c.take(mips, {memfd_of(std::string(16, 'x'))}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("more surfaces"));
    iso::Writer huge = texture_item(af::FMT_R8G8B8A8_UNORM, 0xffffffffu, 0xffffffffu, 1, 16, 0);
    CHECK(c.take(huge, {memfd_of(std::string(16, 'x'))}) == AF_ERR_INTERNAL);
    iso::Writer format = texture_item(0xdeadu, 2, 2, 1, 16, 0);
    CHECK(c.take(format, {memfd_of(std::string(16, 'x'))}) == AF_ERR_INTERNAL);
    CHECK(c.got.names.empty());
}

TEST_CASE("stage reply: a palette the texture's format does not read, or shorter than it reads, is refused") {
    Call c;
    iso::Writer rgba = texture_item(af::FMT_R8G8B8A8_UNORM, 2, 2, 1, 16, 1024);
    CHECK(c.take(rgba, {memfd_of(std::string(16, 'x')), memfd_of(std::string(1024, 'p'))}) == AF_ERR_INTERNAL);
    iso::Writer p8 = texture_item(af::FMT_P8, 2, 2, 1, 4, 16);
    CHECK(c.take(p8, {memfd_of(std::string(4, 'x')), memfd_of(std::string(16, 'p'))}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("its texture needs 1024"));
    CHECK(c.got.names.empty());
}

TEST_CASE("stage reply: counts and kinds the message cannot hold are refused before anything is reserved") {
    Call c;
    iso::Writer meta;
    meta.str("a.bin").u32(0xffffffffu);
    CHECK(c.take(meta, {}) == AF_ERR_INTERNAL);
    iso::Writer kind;
    kind.str("a.bin").u32(0).u32(7);
    CHECK(c.take(kind, {}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("no kind of item"));
    iso::Writer name;
    name.u32(1u << 30);
    CHECK(c.take(name, {}) == AF_ERR_INTERNAL);
    iso::Writer trailing = bytes_item("a.bin", 1);
    trailing.u32(0);
    CHECK(c.take(trailing, {memfd_of("x")}) == AF_ERR_INTERNAL);
    CHECK(c.got.names.empty());
}

TEST_CASE("stage reply: a call's emitted bytes and items are bounded") {
    Call c;
    c.left = {8, 2};
    iso::Writer big = bytes_item("a.bin", 9);
    CHECK(c.take(big, {memfd_of(std::string(9, 'x'))}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("more than the memory budget"));
    iso::Writer one = bytes_item("b.bin", 1);
    CHECK(c.take(one, {memfd_of("x")}) == AF_OK);
    CHECK(c.take(one, {memfd_of("x")}) == AF_ERR_INTERNAL);
    CHECK_THAT(c.e.message, Catch::Contains("more items"));
    CHECK(c.got.names.size() == 1);
}

TEST_CASE("stage wire: a stage call's inputs cross inside the message, or past 48 KiB in one memory file, and come "
          "back as the stage sees them") {
    const bool small = GENERATE(true, false);
    const std::string bytes = small ? "raw bytes" : std::string(100000, 'r');
    af_item raw{};
    af::sdk::init_header(raw);
    raw.name = "a.bin";
    raw.bytes = reinterpret_cast<const uint8_t*>(bytes.data());
    raw.size = bytes.size();
    af::Texture t(af::TextureDesc{af::FMT_R8G8B8A8_UNORM, 2, 1});
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = uint8_t(i);
    af::sdk::TextureView view(t);
    const af_kv kv[] = {{"frame", "3"}};
    af_item tex{};
    af::sdk::init_header(tex);
    tex.name = "b.png";
    tex.texture = view.get();
    tex.meta = kv;
    tex.meta_count = 1;
    const af_item* items[] = {&raw, &tex};
    af_stage_io io{};
    af::sdk::init_header(io);
    io.inputs = items;
    io.input_count = 2;
    io.base_dir = "/project";
    const af_kv params_kv[] = {{"level", "2"}};
    const af_options params{params_kv, 1};
    iso::Writer body;
    const int fd = iso::put_stage_call(body, 7, &io, &params);
    if (small)
        REQUIRE(fd == iso::kInlineCall);
    else
        REQUIRE(fd >= 0);
    iso::Reader r(body.bytes());
    iso::StageCall call(r, fd >= 0 ? std::vector<int>{fd} : std::vector<int>{});
    if (fd >= 0) ::close(fd);
    CHECK(body.bytes().size() < (small ? iso::kInlineBytes : 64));
    CHECK(call.stage_index() == 7);
    CHECK(std::string(call.base_dir()) == "/project");
    REQUIRE(call.params().count == 1);
    CHECK(std::string(call.params().items[0].value) == "2");
    REQUIRE(call.input_count() == 2);
    const af_item& a = *call.inputs()[0];
    CHECK(std::string(a.name) == "a.bin");
    CHECK(std::string(reinterpret_cast<const char*>(a.bytes), a.size) == bytes);
    const af_item& b = *call.inputs()[1];
    REQUIRE(b.texture);
    CHECK(b.texture->width == 2);
    CHECK(std::string(b.meta[0].key) == "frame");
    CHECK(std::vector<uint8_t>(b.texture->data, b.texture->data + b.texture->data_size) == t.data);
}
