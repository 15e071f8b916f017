#include "base/surface_names.hpp"

#include <vector>

namespace af::base {
namespace {

// "face3" → ("face", 3); nothing for another word, no digits or a leading zero.
std::optional<std::pair<std::string_view, uint32_t>> word_number(std::string_view part) {
    size_t d = 0;
    while (d < part.size() && !(part[d] >= '0' && part[d] <= '9')) ++d;
    const std::string_view word = part.substr(0, d), digits = part.substr(d);
    if (word.empty() || digits.empty() || digits.size() > 5 || (digits.size() > 1 && digits[0] == '0'))
        return std::nullopt;
    uint32_t n = 0;
    for (char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
        n = n * 10 + uint32_t(c - '0');
    }
    if (n > 65535) return std::nullopt;
    return std::pair{word, n};
}

} // namespace

std::optional<SurfaceName> surface_name(std::string_view name) {
    const size_t slash = name.rfind('/');
    const std::string_view dir = slash == std::string_view::npos ? std::string_view() : name.substr(0, slash + 1);
    const std::string_view file = name.substr(dir.size());
    // stem . part [. part] . ext: the parts are the last ones before the extension.
    std::vector<size_t> dots;
    for (size_t i = 0; i < file.size(); ++i)
        if (file[i] == '.') dots.push_back(i);
    if (dots.size() < 2 || dots.front() == 0) return std::nullopt;
    const size_t ext_dot = dots.back();
    SurfaceName s;
    size_t first = ext_dot; // where the surface part starts
    // At most three parts (layer, face, mip level); walk back from the extension.
    for (size_t k = dots.size() - 1, taken = 0; k-- > 0 && taken < 3; ++taken) {
        if (dots[k] == 0) break;
        auto wn = word_number(file.substr(dots[k] + 1, first - dots[k] - 1));
        if (!wn) break;
        const auto [word, n] = *wn;
        const bool last = first == ext_dot;
        const bool only_mip_after = !s.face && !s.layer && !s.slice; // nothing but a level follows a face or slice
        if (word == "mip" && last)
            s.mip = n;
        else if (word == "face" && only_mip_after)
            s.face = n;
        else if ((word == "layer" || word == "frame") && !s.layer && !s.slice)
            s.layer = n, s.frame = word == "frame";
        else if (word == "slice" && only_mip_after)
            s.slice = n;
        else
            break;
        first = dots[k];
        if (s.layer || s.slice) break; // nothing comes before a layer or a slice
    }
    if (first == ext_dot || first == 0) return std::nullopt;
    s.surface = std::string(file.substr(first, ext_dot - first));
    s.set = std::string(dir) + std::string(file.substr(0, first)) + std::string(file.substr(ext_dot));
    return s;
}

} // namespace af::base
