// An af_texture's description (everything but its buffers) and af_options on the wire.
#pragma once

#include "assetforge/plugin_abi.h"
#include "host/isolation/wire.hpp"

#include <string>
#include <vector>

namespace af::host::isolation {

// Strings a decoded af_options / af_texture.meta point into.
struct KvStore {
    std::vector<std::string> text;
    std::vector<af_kv> kv;
    void fill(Reader& r);
    af_options options() const { return {kv.data(), uint32_t(kv.size())}; }
};

void put_options(Writer& w, const af_options* o);
void put_texture_desc(Writer& w, const af_texture& t);
// Sets every field of t but data and palette; meta points into store.
void get_texture_desc(Reader& r, af_texture& t, KvStore& store);
void put_dims(Writer& w, const af_dims& d);
void get_dims(Reader& r, af_dims& d);

} // namespace af::host::isolation
