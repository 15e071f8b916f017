// `info` for DDS files: what the header says, what it means, and what is wrong
// with it, as one JSON object and as text for people.
#pragma once

#include "dds_layout.hpp"

#include "assetforge/plugin_abi.h"

#include <string>

namespace af::dds {

struct InfoReport {
    std::string json;
    std::string text;
};

// Succeeds for any file with a readable DDS header, reporting a header the
// reader would reject under "error"; throws af::sdk::Error only when there is
// no DDS header at all (wrong magic, shorter than 128/148 bytes).
InfoReport info_report(const uint8_t* data, uint64_t size, const Limits& limits);

// The container's info (plugin.cpp registers it).
af_status info_container(const af_host* host, const af_input* in, const af_options* options, af_info_text* out,
                         af_error* error);

} // namespace af::dds
