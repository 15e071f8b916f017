// `--report-pictures none|thumbs|full[=MAXPX]`: how much of each texture the
// HTML report keeps on disk. A tree of 300 textures of 2048² made 1 GB of
// full-size pictures; thumbnails only, or full size capped, cost a fraction.
#pragma once

#include <cstdint>
#include <string>

namespace af::report {

struct PicturesOption {
    bool on = true;        // none (or false): the page without pictures, nothing decoded for them
    uint32_t max_side = 0; // the full-size pictures' longest side at most; 0: as mip 0 is
};

// Also true (full) and false (none), as the option took before. Throws
// std::invalid_argument naming the valid values.
PicturesOption parse_pictures_option(const std::string& text);

} // namespace af::report
