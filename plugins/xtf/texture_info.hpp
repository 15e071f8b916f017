// `assetforge info` for XTF and VTF: every header field, the derived counts
// and the block table with offsets, as JSON and as text.
#pragma once

#include <cstdint>
#include <string>

namespace af::xtf {

// Both forms as finished text: the ABI's af_info_text hands out strings.
struct InfoReport {
    std::string json;
    std::string text;
};

// Parse only (no pixel data is copied). Throws af::sdk::Error like the readers.
InfoReport describe_xtf(const uint8_t* data, uint64_t size);
InfoReport describe_vtf(const uint8_t* data, uint64_t size);

} // namespace af::xtf
