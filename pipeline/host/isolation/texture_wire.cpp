#include "host/isolation/texture_wire.hpp"

#include "assetforge/plugin.hpp"

#include <cstring>
#include <stdexcept>

namespace af::host::isolation {
namespace {

void put_kvs(Writer& w, const af_kv* items, uint32_t count) {
    w.u32(count);
    for (uint32_t i = 0; i < count; ++i) {
        w.str(items[i].key ? items[i].key : "");
        w.str(items[i].value ? items[i].value : "");
    }
}

} // namespace

void KvStore::fill(Reader& r) {
    const uint32_t n = r.u32();
    // Each pair takes at least its two length fields: a count the message cannot hold is refused before anything
    // is reserved for it (the peer may claim four billion pairs in a few bytes).
    if (n > r.left() / (2 * sizeof(uint32_t))) throw std::runtime_error("claims more key/value pairs than it holds");
    text.clear();
    kv.clear();
    text.reserve(size_t(n) * 2); // no reallocation: kv points into it
    for (uint32_t i = 0; i < n; ++i) {
        text.push_back(r.str());
        text.push_back(r.str());
    }
    for (uint32_t i = 0; i < n; ++i) kv.push_back({text[2 * i].c_str(), text[2 * i + 1].c_str()});
}

void put_options(Writer& w, const af_options* o) {
    if (!o) {
        w.u32(0);
        return;
    }
    put_kvs(w, o->items, o->count);
}

void put_texture_desc(Writer& w, const af_texture& t) {
    w.u32(t.format).u32(t.width).u32(t.height).u32(t.depth).u32(t.mip_count).u32(t.layer_count).u32(t.face_count);
    w.u32(t.flags).u32(t.alpha_mode).u64(t.data ? t.data_size : 0).u64(t.palette ? t.palette_size : 0);
    put_kvs(w, t.meta, t.meta ? t.meta_count : 0);
}

void get_texture_desc(Reader& r, af_texture& t, KvStore& store) {
    std::memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.api_major = AF_API_MAJOR;
    t.api_minor = AF_API_MINOR;
    t.format = r.u32();
    t.width = r.u32();
    t.height = r.u32();
    t.depth = r.u32();
    t.mip_count = r.u32();
    t.layer_count = r.u32();
    t.face_count = r.u32();
    t.flags = r.u32();
    t.alpha_mode = r.u32();
    t.data_size = r.u64();
    t.palette_size = r.u64();
    store.fill(r);
    t.meta = store.kv.empty() ? nullptr : store.kv.data();
    t.meta_count = uint32_t(store.kv.size());
}

void put_dims(Writer& w, const af_dims& d) {
    w.u32(d.format).u32(d.width).u32(d.height).u32(d.depth).u32(d.layer_count).u32(d.face_count).u32(d.mip_count);
}

void get_dims(Reader& r, af_dims& d) {
    d = af_dims{};
    sdk::init_header(d);
    d.format = r.u32();
    d.width = r.u32();
    d.height = r.u32();
    d.depth = r.u32();
    d.layer_count = r.u32();
    d.face_count = r.u32();
    d.mip_count = r.u32();
}

} // namespace af::host::isolation
