// The messages between the host and a plugin worker: one SOCK_SEQPACKET
// datagram each, small fields inline, bulk data as memfd descriptors passed
// with SCM_RIGHTS (the receiver maps them; nothing is copied through the socket).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace af::host::isolation {

enum class Op : uint32_t {
    Probe = 1,
    Read = 2,
    Info = 3,
    Write = 4,
    Dims = 5,
    Stage = 6,    // a plugin stage's run (stage_wire.hpp)
    Describe = 7, // the plugin's tables (plugin_description.hpp)
    Decode = 8,   // a codec's decode of one surface
    Encode = 9,   // a codec's encode of one surface
    // worker → host, any number before the reply
    Log = 10,
    Warn = 11,
    Emit = 12, // an item a stage emits (stage_replies.hpp)
    Reply = 20,
};

// The largest datagram either side sends. Bulk data up to kInlineBytes travels inside a message where the message
// says so (a stage's call, an emitted item); anything larger crosses as a sealed memory file.
constexpr size_t kMaxMessage = 64 * 1024;
constexpr size_t kInlineBytes = 48 * 1024;
constexpr size_t kMaxFds = 4;

struct Message {
    Op op{};
    std::vector<uint8_t> body;
    std::vector<int> fds; // owned by the receiver
};

// Appends fields; Reader takes them back in the same order.
class Writer {
  public:
    Writer& u32(uint32_t v);
    Writer& u64(uint64_t v);
    Writer& i32(int32_t v) { return u32(uint32_t(v)); }
    Writer& str(std::string_view s);
    Writer& raw(const void* p, size_t n);
    std::vector<uint8_t>& bytes() { return b_; }

  private:
    std::vector<uint8_t> b_;
};

// Throws std::runtime_error on a truncated message (a worker that lies is treated as crashed).
class Reader {
  public:
    explicit Reader(const std::vector<uint8_t>& b) : b_(b) {}
    uint32_t u32();
    uint64_t u64();
    int32_t i32() { return int32_t(u32()); }
    std::string str();
    std::string_view raw(size_t n);
    size_t left() const { return b_.size() - at_; }

  private:
    const std::vector<uint8_t>& b_;
    size_t at_ = 0;
};

// false when the peer is gone.
bool send_message(int sock, Op op, const std::vector<uint8_t>& body, const std::vector<int>& fds = {});
// false on end of stream or error; fds received are owned by the caller.
bool recv_message(int sock, Message& out);

// A sealed-size anonymous shared memory file of `size` bytes, mapped
// read-write. Returns the fd (or -1) and sets *map (MAP_FAILED on error).
int make_shared(uint64_t size, void** map);
// Maps a received memfd of `size` bytes read-only, after sealing it against shrinking and checking it holds them;
// nullptr on failure (not a sealable memory file, or shorter than claimed).
void* map_shared(int fd, uint64_t size);
// As map_shared, writable and shared: the one buffer a worker fills for the host, which the host made and sized
// (a codec's destination).
void* map_shared_writable(int fd, uint64_t size);
// As map_shared, for what the host adopts from a worker: first sealed against every change (writes, new writable
// mappings, resizing), which the kernel refuses while any process still has it mapped writable, so what the host
// checks is what it keeps. The view is private and writable: the host's own writes stay in its copy.
void* map_frozen(int fd, uint64_t size);
void close_fds(std::vector<int>& fds);

} // namespace af::host::isolation
