// What the HTML report keeps of one texture action's images until the end of
// the build: names and a few numbers. The pixels themselves were written to
// the report's folder as the action finished, so a tree of 10,000 textures
// never holds more than the running actions' images.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace af::base {

struct ReportFigures {
    std::string id; // file names in the report's folder: <id>.src.png, <id>.res.t.png, …
    uint32_t width = 0, height = 0, result_width = 0, result_height = 0; // mip 0
    bool compared = false;                                               // the figures below were measured
    std::array<std::optional<double>, 4> psnr;                           // R, G, B, A in dB; nullopt: identical
    std::optional<double> psnr_rgb;                                      // from the mean of R, G and B's MSE
    std::array<double, 4> max_error{};                                   // 0..1
    double heat_scale = 0; // the largest error: the difference view amplifies it to white
    // The full-size pictures' size: mip 0's, or less under --report-pictures full=MAXPX or thumbs.
    uint32_t picture_width = 0, picture_height = 0, result_picture_width = 0, result_picture_height = 0;
    // The difference a player sees (<id>.diff.png, <id>.alpha.png): the colour error of the channels the result
    // keeps, weighted by the source's alpha (none counted under alpha 0), and the alpha error on its own.
    bool difference = false, alpha_picture = false;
    double colour_scale = 0, alpha_scale = 0; // 0..1, their largest errors (white in the pictures)
    uint8_t kept = 0xF;                       // R, G, B, A bits: what the result keeps (Z rebuilt counts as kept)
    std::string result_format;                // the result's format name ("" when unknown)
    uint64_t bytes = 0;                       // what its pictures take on disk
    bool earlier = false;                     // made by an earlier build (the action was up to date)
    bool normal_map = false;
    std::string note; // how the pair was compared, or why something is missing
};

} // namespace af::base
