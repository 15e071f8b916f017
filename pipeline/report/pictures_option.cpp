#include "report/pictures_option.hpp"

#include "report/report_images.hpp"

#include <stdexcept>

namespace af::report {

PicturesOption parse_pictures_option(const std::string& text) {
    if (text == "none" || text == "false") return {false, 0};
    if (text == "full" || text == "true") return {true, 0};
    if (text == "thumbs") return {true, kThumbnailSide};
    const std::string full = "full=";
    if (text.rfind(full, 0) == 0) {
        const std::string n = text.substr(full.size());
        // Under a thumbnail's side the full-size picture would be smaller than its own thumbnail.
        if (!n.empty() && n.size() <= 6 && n.find_first_not_of("0123456789") == std::string::npos &&
            std::stoul(n) >= kThumbnailSide)
            return {true, uint32_t(std::stoul(n))};
        throw std::invalid_argument("--report-pictures full=MAXPX expects a whole number of pixels from " +
                                    std::to_string(kThumbnailSide) + " to 999999, got '" + n + "'");
    }
    throw std::invalid_argument("--report-pictures expects none, thumbs, full or full=MAXPX (e.g. full=1024), got '" +
                                text + "'");
}

} // namespace af::report
