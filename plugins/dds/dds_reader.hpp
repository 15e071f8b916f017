// DDS → Texture. Reads only the bytes it is given and allocates only what the
// header justifies after checking it against the file size.
#pragma once

#include "dds_layout.hpp"

#include "assetforge/plugin_abi.h"
#include "assetforge/texture.hpp"

#include <vector>

namespace af::dds {

struct ReadOptions {
    bool permissive = false; // short file: keep the whole surfaces that are there
    bool srgb = false;       // legacy headers cannot say sRGB: tag the result sRGB
    Limits limits;
};

// Options "permissive" and "srgb" (true/false); limits from the host table.
ReadOptions read_options(const af_options* options, const af_host* host);

// Where the texture's bytes are in the file and what they hold.
struct ReadPlan {
    TextureDesc desc;
    uint64_t data_offset = 0;
    uint64_t data_size = 0; // == texture_bytes(desc), within the file
    bool dx10 = false;      // the file has the DX10 header extension
    std::vector<Problem> warnings;
};

// Throws af::sdk::Error for bad headers, and for short files unless permissive.
ReadPlan plan_read(const uint8_t* data, uint64_t size, const ReadOptions& opt);

// The container's probe and read (plugin.cpp registers them).
int32_t probe_dds(const uint8_t* head, uint64_t head_size, const char* path);
af_status read_container(const af_host* host, const af_input* in, const af_options* options, af_texture* out,
                         af_error* error);

Texture read_dds(const uint8_t* data, uint64_t size, const ReadOptions& opt, std::vector<Problem>* warnings = nullptr);

} // namespace af::dds
