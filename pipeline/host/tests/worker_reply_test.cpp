// What the host takes from a worker's reply (host/isolation/replies.hpp). Each case is a lie a worker once got
// past the host: a probe reply too short to hold its verdict threw out of the probe trampoline, an info or write
// reply that did not parse threw out of the call, a text without its NUL was read past its end, and a metadata
// count of four billion reserved that many strings before the message was found to hold none.
#include "host/host_services.hpp"
#include "host/isolation/replies.hpp"
#include "host/isolation/shared_memory.hpp"
#include "host/isolation/texture_wire.hpp"
#include "host/isolation/wire.hpp"

#include <catch2/catch.hpp>

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

namespace iso = af::host::isolation;

namespace {

int memfd_holding(const std::string& bytes) {
    const int fd = ::memfd_create("test", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    REQUIRE(fd >= 0);
    REQUIRE(::ftruncate(fd, off_t(bytes.size())) == 0);
    REQUIRE(::pwrite(fd, bytes.data(), bytes.size(), 0) == ssize_t(bytes.size()));
    return fd;
}

iso::Writer ok_status() {
    iso::Writer w;
    w.i32(AF_OK).u64(0).str("");
    return w;
}

iso::Message reply_of(iso::Writer& w, std::vector<int> fds = {}) {
    iso::Message m;
    m.op = iso::Op::Reply;
    m.body = w.bytes();
    m.fds = std::move(fds);
    return m;
}

} // namespace

TEST_CASE("worker reply: a probe reply too short for its verdict claims nothing") {
    iso::Writer w;
    w.raw("\x01", 1);
    iso::Message m = reply_of(w);
    CHECK(iso::probe_reply(m) == AF_PROBE_NO);
    iso::Writer good;
    good.i32(AF_PROBE_MAGIC);
    iso::Message g = reply_of(good);
    CHECK(iso::probe_reply(g) == AF_PROBE_MAGIC);
}

TEST_CASE("worker reply: a metadata count the message cannot hold is refused before anything is reserved") {
    iso::Writer w = ok_status();
    w.u32(28u /* R8G8B8A8_UNORM */).u32(1).u32(1).u32(1).u32(1).u32(1).u32(1).u32(0).u32(0).u64(0).u64(0);
    w.u32(0xffffffffu); // pairs claimed, none sent
    iso::Message m = reply_of(w);
    iso::KvStore meta;
    af_texture t{};
    af_error e{};
    CHECK(iso::read_reply(m, "liar", meta, &t, &e) == AF_ERR_INTERNAL);
    CHECK_THAT(e.message, Catch::Contains("plugin 'liar' worker answered badly") &&
                              Catch::Contains("more key/value pairs than it holds"));
    CHECK(meta.text.capacity() < 1000);
}

TEST_CASE("worker reply: info texts must end in their NUL within the bytes shared") {
    af_error e{};
    {
        iso::Writer w = ok_status();
        w.u64(4).u64(0);
        iso::Message m = reply_of(w, {memfd_holding("{}}}")});
        af_info_text t{};
        CHECK(iso::info_reply(m, "liar", &t, &e) == AF_ERR_INTERNAL);
        CHECK_THAT(e.message, Catch::Contains("does not end in a NUL"));
        CHECK(t.json == nullptr);
        CHECK(m.fds.empty());
    }
    {
        iso::Writer w = ok_status();
        w.u64(3).u64(6);
        iso::Message m = reply_of(w, {memfd_holding(std::string("{}\0", 3)), memfd_holding(std::string("hello\0", 6))});
        af_info_text t{};
        REQUIRE(iso::info_reply(m, "good", &t, &e) == AF_OK);
        CHECK(std::string(t.json) == "{}");
        CHECK(std::string(t.text) == "hello");
        CHECK(iso::release_shared(t.json));
        CHECK(iso::release_shared(t.text));
    }
}

TEST_CASE("worker reply: a truncated info or write reply is an error of the call, not an exception") {
    iso::Writer w;
    w.i32(AF_OK); // no offset, no message
    af_error e{};
    iso::Message info = reply_of(w);
    af_info_text t{};
    CHECK(iso::info_reply(info, "liar", &t, &e) == AF_ERR_INTERNAL);
    iso::Message write = reply_of(w);
    af_sink sink{nullptr, [](void*, const void*, uint64_t) { return AF_OK; }};
    CHECK(iso::write_reply(write, "liar", &sink, &e) == AF_ERR_INTERNAL);
    CHECK_THAT(e.message, Catch::Contains("truncated"));
}

TEST_CASE("worker reply: written bytes claimed past the memory file are refused, and the file's bytes reach the sink") {
    af_error e{};
    std::string got;
    af_sink sink{&got, [](void* ctx, const void* data, uint64_t size) {
                     static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size);
                     return AF_OK;
                 }};
    iso::Writer lie = ok_status();
    lie.u64(1u << 20);
    iso::Message m = reply_of(lie, {memfd_holding("abc")});
    CHECK(iso::write_reply(m, "liar", &sink, &e) == AF_ERR_INTERNAL);
    CHECK(got.empty());
    iso::Writer good = ok_status();
    good.u64(3);
    iso::Message g = reply_of(good, {memfd_holding("abc")});
    CHECK(iso::write_reply(g, "good", &sink, &e) == AF_OK);
    CHECK(got == "abc");
}

TEST_CASE("worker reply: a read whose palette is missing gives back the data it had adopted") {
    iso::Writer w = ok_status();
    w.u32(28u /* R8G8B8A8_UNORM */).u32(1).u32(1).u32(1).u32(1).u32(1).u32(1).u32(0).u32(0).u64(4).u64(1024).u32(0);
    iso::Message m = reply_of(w, {memfd_holding("rgba")});
    iso::KvStore meta;
    af_texture t{};
    af_error e{};
    CHECK(iso::read_reply(m, "liar", meta, &t, &e) == AF_ERR_INTERNAL);
    CHECK(t.data == nullptr);
    CHECK_THAT(e.message, Catch::Contains("no descriptor for its palette"));
}

TEST_CASE("worker reply: a status the plugin interface does not define is no status") {
    // Found by fuzz_worker_reply: -3 was taken for an af_status value.
    iso::Writer w;
    w.i32(-3).u64(12).str("oops!");
    iso::Message m = reply_of(w);
    af_dims d{};
    af_error e{};
    CHECK(iso::dims_reply(m, "liar", &d, &e) == AF_ERR_INTERNAL);
    CHECK_THAT(e.message, Catch::Contains("status -3 is none the plugin interface defines"));
    iso::Writer known;
    known.i32(AF_ERR_UNSUPPORTED).u64(12).str("no cubemaps");
    iso::Message k = reply_of(known);
    CHECK(iso::dims_reply(k, "honest", &d, &e) == AF_ERR_UNSUPPORTED);
    CHECK(e.offset == 12);
    CHECK_THAT(e.message, Catch::Equals("no cubemaps"));
}

TEST_CASE("worker reply: a reply with no descriptor carries small buffers inside it, and one cut short is refused") {
    af_error e{};
    iso::Writer w = ok_status();
    w.u32(28u /* R8G8B8A8_UNORM */).u32(1).u32(1).u32(1).u32(1).u32(1).u32(1).u32(0).u32(0).u64(4).u64(0).u32(0);
    w.raw("rgba", 4);
    iso::Message m = reply_of(w);
    iso::KvStore meta;
    af_texture t{};
    REQUIRE(iso::read_reply(m, "small", meta, &t, &e) == AF_OK);
    CHECK(std::string(reinterpret_cast<const char*>(t.data), 4) == "rgba");
    CHECK_FALSE(iso::release_shared(t.data)); // the host's own allocation, released by its free
    af::host::services()->free(t.data);

    iso::Writer info = ok_status();
    info.u64(3).u64(6).raw("{}\0hello\0", 9);
    iso::Message im = reply_of(info);
    af_info_text text{};
    REQUIRE(iso::info_reply(im, "small", &text, &e) == AF_OK);
    CHECK(std::string(text.json) == "{}");
    CHECK(std::string(text.text) == "hello");
    af::host::services()->free(text.json);
    af::host::services()->free(text.text);

    std::string got;
    af_sink sink{&got, [](void* ctx, const void* data, uint64_t size) {
                     static_cast<std::string*>(ctx)->append(static_cast<const char*>(data), size);
                     return AF_OK;
                 }};
    iso::Writer written = ok_status();
    written.u64(3).raw("abc", 3);
    iso::Message wm = reply_of(written);
    CHECK(iso::write_reply(wm, "small", &sink, &e) == AF_OK);
    CHECK(got == "abc");

    iso::Writer cut = ok_status();
    cut.u64(1u << 20).raw("abc", 3);
    iso::Message cm = reply_of(cut);
    CHECK(iso::write_reply(cm, "liar", &sink, &e) == AF_ERR_INTERNAL);
    CHECK_THAT(e.message, Catch::Contains("its written bytes is cut short"));
    CHECK(got == "abc");
}
