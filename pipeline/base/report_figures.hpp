// What the HTML report keeps of one texture action's images until the end of
// the build: names and a few numbers. The pixels themselves were written to
// the report's folder as the action finished, so a tree of 10,000 textures
// never holds more than the running actions' images.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace af::engine {

struct ReportFigures {
    std::string id; // file names in the report's folder: <id>.src.png, <id>.res.t.png, …
    uint32_t width = 0, height = 0, result_width = 0, result_height = 0; // mip 0
    bool compared = false;                                               // the figures below were measured
    std::array<std::optional<double>, 4> psnr;                           // R, G, B, A in dB; nullopt: identical
    std::optional<double> psnr_rgb;                                      // from the mean of R, G and B's MSE
    std::array<double, 4> max_error{};                                   // 0..1
    double heat_scale = 0; // the largest error: the difference view amplifies it to white
    bool normal_map = false;
    std::string note; // how the pair was compared, or why something is missing
};

} // namespace af::engine
