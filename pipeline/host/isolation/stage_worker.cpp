#include "host/isolation/stage_worker.hpp"

#include "assetforge/plugin.hpp"
#include "host/host_services.hpp"
#include "host/isolation/stage_wire.hpp"
#include "host/isolation/texture_wire.hpp"
#include "host/plugin_registry.hpp"

#include <cstring>
#include <string_view>

namespace af::host::isolation {
namespace {

struct EmitToHost {
    int sock;
    const WorkerBlocks& blocks;
};

// Descriptors for the buffers of one emitted item: a block the plugin took from af_host.alloc crosses as it
// is; anything else is copied into a new block first, freed once the message is sent (the host then holds its
// own reference to the memfd).
class ItemBuffers {
  public:
    explicit ItemBuffers(const WorkerBlocks& b) : blocks_(b) {}
    ~ItemBuffers() {
        for (void* p : copies_) blocks_.free(p);
    }
    ItemBuffers(const ItemBuffers&) = delete;
    ItemBuffers& operator=(const ItemBuffers&) = delete;
    bool share(const void* p, uint64_t size) {
        int fd = blocks_.fd_of(p, size);
        if (fd < 0) {
            void* copy = blocks_.alloc(size);
            if (!copy) return false;
            copies_.push_back(copy);
            if (size) std::memcpy(copy, p, size);
            fd = blocks_.fd_of(copy, size);
        }
        fds.push_back(fd);
        return fd >= 0;
    }
    std::vector<int> fds;

  private:
    const WorkerBlocks& blocks_;
    std::vector<void*> copies_;
};

af_status emit_to_host(void* ctx, const af_item* raw) {
    const auto& to = *static_cast<const EmitToHost*>(ctx);
    if (!raw) return AF_ERR_USAGE;
    const af_item it = sdk::read_table<af_item>(raw);
    Writer w;
    w.str(it.name ? std::string_view(it.name) : std::string_view());
    const af_options meta{it.meta, it.meta ? it.meta_count : 0};
    put_options(w, &meta);
    af_texture t{};
    if (it.texture) t = sdk::read_table<af_texture>(it.texture);
    const uint64_t data = it.texture ? (t.data ? t.data_size : 0) : (it.bytes ? it.size : 0);
    const uint64_t palette = it.texture && t.palette ? t.palette_size : 0;
    // The description after the kind: a texture's (its own metadata included), or a bytes item's size.
    Writer desc;
    if (it.texture)
        put_texture_desc(desc, t);
    else if (it.bytes)
        desc.u64(it.size);
    // Inside the message when the whole item fits in one: a memory file each way costs more than the copy.
    const size_t head = w.bytes().size() + sizeof(uint32_t) + desc.bytes().size();
    const bool in_message = data + palette <= kInlineBytes && head + data + palette + sizeof(uint32_t) <= kMaxMessage;
    ItemBuffers buffers(to.blocks);
    bool shared = true;
    auto add = [&](const void* p, uint64_t size) {
        if (!size) return;
        if (in_message)
            w.raw(p, size);
        else
            shared = shared && buffers.share(p, size);
    };
    const ItemKind kind = it.texture ? (in_message ? ItemKind::TextureInline : ItemKind::Texture)
                          : it.bytes ? (in_message ? ItemKind::BytesInline : ItemKind::Bytes)
                                     : ItemKind::Empty;
    w.u32(uint32_t(kind)).raw(desc.bytes().data(), desc.bytes().size());
    add(it.texture ? t.data : it.bytes, data);
    add(t.palette, palette);
    if (!shared) return AF_ERR_NO_MEMORY;
    // The socket carries datagrams of kMaxMessage at most: a longer name or metadata would be cut.
    if (w.bytes().size() + sizeof(uint32_t) > kMaxMessage) return AF_ERR_USAGE;
    return send_message(to.sock, Op::Emit, w.bytes(), buffers.fds) ? AF_OK : AF_ERR_INTERNAL;
}

} // namespace

void serve_stage(const LoadedPlugin& plugin, Reader& request, const std::vector<int>& fds, int sock,
                 const WorkerBlocks& blocks) {
    StageCall call(request, fds);
    const af_stage& stage = plugin.stages.at(call.stage_index());
    EmitToHost to{sock, blocks};
    af_stage_io io{};
    sdk::init_header(io);
    io.inputs = call.inputs();
    io.input_count = call.input_count();
    io.base_dir = call.base_dir();
    io.ctx = &to;
    io.emit = emit_to_host;
    const af_options params = call.params();
    af_error e{};
    const af_status st = stage.run ? stage.run(services(), &io, &params, &e) : AF_ERR_UNSUPPORTED;
    Writer w;
    w.i32(st).u64(e.offset).str(st == AF_OK ? "" : std::string_view(e.message, strnlen(e.message, sizeof e.message)));
    send_message(sock, Op::Reply, w.bytes());
}

} // namespace af::host::isolation
