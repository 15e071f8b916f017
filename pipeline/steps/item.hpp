// What flows through a job's steps: raw bytes or a texture, with metadata
// that output templates read ({mip}, {face}, …).
#pragma once

#include "assetforge/texture.hpp"
#include "core/content_hash.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace af::texture {
struct TopLevel; // texture/texture_ops.hpp
}

namespace af::steps {

using Params = std::map<std::string, std::string>;

struct Item {
    std::string name;                                  // relative name, "sub/dir/file.png"
    std::shared_ptr<const std::vector<uint8_t>> bytes; // raw form (set when texture is null)
    std::shared_ptr<const Texture> texture;            // decoded form
    // What `mips` learned of `texture`'s top level (its analysis, the normal-map verdict), for the steps after
    // it; dropped by any step that replaces the texture.
    std::shared_ptr<const texture::TopLevel> top;
    std::map<std::string, std::string> meta; // template values beyond {dir}/{stem}/…
    std::string container;                   // set by `write`: container to encode with
    bool surface_set = false; // assembled from the pictures of several surfaces (`match` names what is missing)
    // Its levels were pictures of their own (`name.mip<N>`): kept as drawn, never made again from the top.
    bool authored_mips = false;
    Params write_options;
    // Neither bytes nor texture: a file, as a gather step that reads its files itself (StepDef::reads_files) gets
    // each input, unread: the absolute path, its size and content hash as the build recorded them. A step's own
    // result may be a file it wrote whole (`owns_file`): the build writes it out and removes it.
    std::string file;
    uint64_t file_size = 0;
    Hash128 file_hash{};
    bool owns_file = false;

    bool is_texture() const { return texture != nullptr; }
    bool is_file() const { return !texture && !bytes && !file.empty(); }
};

inline Item bytes_item(std::string name, std::vector<uint8_t> data) {
    Item it;
    it.name = std::move(name);
    it.bytes = std::make_shared<const std::vector<uint8_t>>(std::move(data));
    return it;
}

} // namespace af::steps
