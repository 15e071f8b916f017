#include "host/isolation/stage_replies.hpp"

#include "assetforge/formats.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/texture.hpp"
#include "host/host_services.hpp"
#include "host/isolation/isolation.hpp"
#include "host/isolation/replies.hpp"
#include "host/isolation/stage_wire.hpp"
#include "host/isolation/texture_wire.hpp"

#include <sys/mman.h>

#include <cstring>
#include <deque>
#include <stdexcept>
#include <string>
#include <utility>

namespace af::host::isolation {
namespace {

// The emitted item's memfds, in order, each mapped (read only: the engine copies the item before emit returns)
// once it is sealed and checked to hold what the message claims, and unmapped with this object.
class EmittedBuffers {
  public:
    explicit EmittedBuffers(Message& m) : m_(m) {}
    ~EmittedBuffers() {
        for (auto& [p, n] : maps_) ::munmap(p, n ? n : 1);
        close_fds(m_.fds);
    }
    EmittedBuffers(const EmittedBuffers&) = delete;
    EmittedBuffers& operator=(const EmittedBuffers&) = delete;
    const uint8_t* map(uint64_t size, const char* what) {
        if (next_ >= m_.fds.size()) throw std::runtime_error(std::string("no descriptor for its ") + what);
        void* p = map_shared(m_.fds[next_++], size);
        if (!p)
            throw std::runtime_error(std::string("its ") + what + " is not a sealed memory file of the size claimed");
        maps_.emplace_back(p, size);
        return static_cast<const uint8_t*>(p);
    }
    // Bytes that came inside the message, copied out (aligned, as the engine may read texels of any width).
    const uint8_t* take(Reader& r, uint64_t size, const char* what) {
        if (size > r.left()) throw std::runtime_error(std::string("its ") + what + " is cut short");
        const std::string_view bytes = r.raw(size_t(size));
        std::vector<uint8_t>& copy = copies_.emplace_back(bytes.size());
        if (!bytes.empty()) std::memcpy(copy.data(), bytes.data(), bytes.size());
        return copy.data();
    }

  private:
    Message& m_;
    size_t next_ = 0;
    std::vector<std::pair<void*, uint64_t>> maps_;
    std::deque<std::vector<uint8_t>> copies_;
};

void charge(EmitAllowance& left, uint64_t bytes) {
    if (bytes > left.bytes)
        throw std::runtime_error("it emitted more than the memory budget (--memory-budget) in one call");
    left.bytes -= bytes;
}

// The host's limits on a texture (texture_io.cpp's check_limits), before anything computes its size: a
// description of four billion mips or of 2^32-texel sides would otherwise be a long loop or an overflow.
void check_emitted_texture(const af_texture& t) {
    const HostSettings& s = host::settings();
    const uint32_t side = s.max_dimension ? s.max_dimension : UINT32_MAX;
    uint64_t texels = 0;
    if (t.width > side || t.height > side || t.depth > side ||
        __builtin_mul_overflow(uint64_t(t.width) * t.height, uint64_t(t.depth ? t.depth : 1), &texels) ||
        texels > (uint64_t(1) << 44))
        throw std::runtime_error("its texture is " + std::to_string(t.width) + "x" + std::to_string(t.height) + "x" +
                                 std::to_string(t.depth) + ", past --max-dimension or any texture's size");
    const uint64_t mips = t.mip_count ? t.mip_count : 1, faces = t.face_count ? t.face_count : 1,
                   layers = t.layer_count ? t.layer_count : 1;
    if (mips > 32 || faces > 6 || (s.max_surfaces && mips * faces * layers > s.max_surfaces) || layers > (1u << 24))
        throw std::runtime_error("its texture has more surfaces than a texture may");
    if (!format_info(t.format))
        throw std::runtime_error("its texture's format " + std::to_string(t.format) + " is none");
    // The host reads a P8 texture's palette a layer (256 RGBA entries) at a time, and no other's.
    const uint64_t palette = t.format == FMT_P8 ? layers * 1024 : 0;
    if (t.palette_size != palette && !(t.format == FMT_P8 && t.palette_size == 0))
        throw std::runtime_error("its palette holds " + std::to_string(t.palette_size) + " bytes, its texture needs " +
                                 std::to_string(palette));
    TextureDesc d;
    d.format = t.format;
    d.width = t.width;
    d.height = t.height;
    d.depth = t.depth ? t.depth : 1;
    d.mips = uint32_t(mips);
    d.faces = uint32_t(faces);
    d.layers = uint32_t(layers);
    // texture_bytes, without its overflow: each side is bounded above, so only the last product can wrap.
    uint64_t per_face = 0;
    for (uint32_t mip = 0; mip < d.mips; ++mip) per_face += mip_surface_bytes(d, mip);
    if (per_face && faces * layers > UINT64_MAX / per_face) throw std::runtime_error("its texture's size overflows");
    if (per_face * faces * layers != t.data_size)
        throw std::runtime_error("its texture data holds " + std::to_string(t.data_size) +
                                 " bytes, its description needs " + std::to_string(per_face * faces * layers));
}

af_status refused_item(af_error* e, const std::string& plugin, const std::exception& x) {
    set_error(e, AF_ERR_INTERNAL, "plugin '" + plugin + "' worker answered badly: an emitted item: " + x.what());
    return AF_ERR_INTERNAL;
}

} // namespace

EmitAllowance emit_allowance() {
    const uint64_t items = host::settings().max_items;
    return {settings().memory_limit, items ? items : UINT32_MAX};
}

af_status emitted_item(Message& m, const std::string& plugin, const af_stage_io* io, EmitAllowance& left, af_error* e) {
    EmittedBuffers buffers(m);
    try {
        if (left.items == 0) throw std::runtime_error("it emitted more items than --max-items allows in one call");
        --left.items;
        Reader r(m.body);
        const std::string name = r.str();
        KvStore meta, texture_meta;
        meta.fill(r);
        af_item it{};
        sdk::init_header(it);
        it.name = name.c_str();
        it.meta = meta.kv.empty() ? nullptr : meta.kv.data();
        it.meta_count = uint32_t(meta.kv.size());
        af_texture t{};
        const uint32_t kind = r.u32();
        const bool in_message = kind == uint32_t(ItemKind::BytesInline) || kind == uint32_t(ItemKind::TextureInline);
        auto bytes = [&](uint64_t size, const char* what) {
            return in_message ? buffers.take(r, size, what) : buffers.map(size, what);
        };
        if (kind == uint32_t(ItemKind::Bytes) || kind == uint32_t(ItemKind::BytesInline)) {
            it.size = r.u64();
            charge(left, it.size);
            it.bytes = bytes(it.size, "bytes");
        } else if (kind == uint32_t(ItemKind::Texture) || kind == uint32_t(ItemKind::TextureInline)) {
            get_texture_desc(r, t, texture_meta);
            check_emitted_texture(t);
            charge(left, t.data_size);
            charge(left, t.palette_size);
            if (t.data_size) t.data = const_cast<uint8_t*>(bytes(t.data_size, "texture data"));
            if (t.palette_size) t.palette = const_cast<uint8_t*>(bytes(t.palette_size, "palette"));
            it.texture = &t;
        } else if (kind != uint32_t(ItemKind::Empty)) {
            throw std::runtime_error("kind " + std::to_string(kind) + " is no kind of item");
        }
        if (r.left()) throw std::runtime_error(std::to_string(r.left()) + " bytes past its end");
        const af_status st = io->emit(io->ctx, &it);
        if (st != AF_OK) set_error(e, st, "the item '" + name + "' it emitted was refused");
        return st;
    } catch (const std::exception& x) {
        return refused_item(e, plugin, x);
    }
}

} // namespace af::host::isolation
