#include "host/isolation/stage_wire.hpp"

#include "assetforge/plugin.hpp"

#include <sys/mman.h>

#include <cstring>
#include <stdexcept>

namespace af::host::isolation {
namespace {

struct Span {
    const void* data;
    uint64_t size;
};

// The item's description into the manifest; its bytes (or texture data and palette) queued for the bulk part,
// their offsets counted from the bulk's start.
void put_input_item(Writer& m, const af_item& it, std::vector<Span>& bulk, uint64_t& at) {
    m.str(it.name ? it.name : "");
    const af_options meta{it.meta, it.meta ? it.meta_count : 0};
    put_options(m, &meta);
    auto queue = [&](const void* data, uint64_t size) {
        m.u64(at);
        if (size) bulk.push_back({data, size});
        at += size;
    };
    if (it.texture) {
        const af_texture& t = *it.texture;
        m.u32(uint32_t(ItemKind::Texture));
        put_texture_desc(m, t);
        queue(t.data, t.data ? t.data_size : 0);
        queue(t.palette, t.palette ? t.palette_size : 0);
    } else if (it.bytes) {
        m.u32(uint32_t(ItemKind::Bytes));
        queue(it.bytes, it.size);
        m.u64(it.size);
    } else {
        m.u32(uint32_t(ItemKind::Empty));
    }
}

} // namespace

int put_stage_call(Writer& body, uint32_t stage_index, const af_stage_io* io, const af_options* params) {
    Writer manifest;
    put_options(manifest, params);
    manifest.str(io->base_dir ? io->base_dir : "");
    manifest.u32(io->input_count);
    std::vector<Span> bulk;
    uint64_t bulk_size = 0;
    for (uint32_t i = 0; i < io->input_count; ++i) {
        if (!io->inputs[i]) throw std::runtime_error("a stage input is missing");
        put_input_item(manifest, *io->inputs[i], bulk, bulk_size);
    }
    const uint64_t head = manifest.bytes().size(), total = head + bulk_size;
    body.u32(stage_index).u64(head).u64(total);
    auto fill = [&](uint8_t* at) {
        std::memcpy(at, manifest.bytes().data(), head);
        at += head;
        for (const Span& s : bulk) {
            std::memcpy(at, s.data, s.size);
            at += s.size;
        }
    };
    if (total <= kInlineBytes) {
        auto& b = body.bytes();
        b.resize(b.size() + total);
        fill(b.data() + b.size() - total);
        return kInlineCall;
    }
    void* map;
    const int fd = make_shared(total, &map);
    if (fd < 0) return -1;
    fill(static_cast<uint8_t*>(map));
    ::munmap(map, total ? total : 1);
    return fd;
}

StageCall::StageCall(Reader& body, const std::vector<int>& fds) {
    index_ = body.u32();
    manifest_ = body.u64();
    size_ = body.u64();
    if (manifest_ > size_ || (fds.empty() && body.left() != size_))
        throw std::runtime_error("a stage call without its inputs");
    // Writable, though the host never reads it back: a stage that scribbles on its input (it may, in process)
    // should not crash here for it. A private view, so nothing written reaches the host's file; a small call's
    // bytes are copied out of the message, which also aligns them as the allocator does.
    if (fds.empty()) {
        const std::string_view bytes = body.raw(size_t(size_));
        inline_.resize(bytes.size());
        if (!bytes.empty()) std::memcpy(inline_.data(), bytes.data(), bytes.size());
    } else {
        map_ = map_frozen(fds[0], size_);
        if (!map_) throw std::runtime_error("cannot map the stage's inputs");
    }
    const auto* base = this->base();
    const std::vector<uint8_t> manifest(base, base + manifest_);
    Reader r(manifest);
    params_.fill(r);
    base_dir_ = r.str();
    const uint32_t count = r.u32();
    if (count > r.left()) throw std::runtime_error("claims more input items than it describes");
    for (uint32_t i = 0; i < count; ++i) read_item(r, entries_.emplace_back());
    for (const Entry& e : entries_) pointers_.push_back(&e.item);
}

StageCall::~StageCall() {
    if (map_) ::munmap(map_, size_ ? size_ : 1);
}

const uint8_t* StageCall::bulk_at(uint64_t offset, uint64_t size) const {
    const uint64_t bulk = size_ - manifest_;
    if (offset > bulk || size > bulk - offset) throw std::runtime_error("an input item lies outside its memory file");
    return base() + manifest_ + offset;
}

void StageCall::read_item(Reader& r, Entry& e) {
    e.name = r.str();
    e.meta.fill(r);
    sdk::init_header(e.item);
    e.item.name = e.name.c_str();
    e.item.meta = e.meta.kv.empty() ? nullptr : e.meta.kv.data();
    e.item.meta_count = uint32_t(e.meta.kv.size());
    switch (ItemKind(r.u32())) {
    case ItemKind::Bytes: {
        const uint64_t offset = r.u64(), size = r.u64();
        e.item.bytes = bulk_at(offset, size);
        e.item.size = size;
        break;
    }
    case ItemKind::Texture: {
        get_texture_desc(r, e.texture, e.texture_meta);
        const uint64_t data = r.u64(), palette = r.u64();
        if (e.texture.data_size) e.texture.data = const_cast<uint8_t*>(bulk_at(data, e.texture.data_size));
        if (e.texture.palette_size) e.texture.palette = const_cast<uint8_t*>(bulk_at(palette, e.texture.palette_size));
        e.item.texture = &e.texture;
        break;
    }
    case ItemKind::Empty:
        break;
    default:
        throw std::runtime_error("an input item of no kind");
    }
}

} // namespace af::host::isolation
