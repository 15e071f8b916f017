// Filter kernels and the names users type for them and for edge modes.
#include "core/image_ops_internal.hpp"

#include "assetforge/plugin.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <numbers>
#include <string>

namespace af {
namespace image_ops {
namespace {

constexpr double kPi = std::numbers::pi;

double sinc(double x) {
    if (std::fabs(x) < 1e-9) return 1.0;
    return std::sin(kPi * x) / (kPi * x);
}

// Modified Bessel function of the first kind, order 0 (power series; converges
// quickly for the small arguments a Kaiser window uses).
double bessel_i0(double x) {
    double sum = 1.0, term = 1.0, q = x * x / 4.0;
    for (int k = 1; k < 50; ++k) {
        term *= q / (double(k) * k);
        sum += term;
        if (term < sum * 1e-16) break;
    }
    return sum;
}

// Point is handled by the resampler (nearest texel); this kernel is only used
// for its radius.
double point_weight(double x) { return std::fabs(x) <= 0.5 ? 1.0 : 0.0; }

// Half-open so that a tap exactly on the boundary is counted by one side only.
double box_weight(double x) { return (x >= -0.5 && x < 0.5) ? 1.0 : 0.0; }

double triangle_weight(double x) {
    x = std::fabs(x);
    return x < 1.0 ? 1.0 - x : 0.0;
}

// nvtt's defaults: the window spans the full radius of 3 with alpha 4.
constexpr double kKaiserRadius = 3.0;
constexpr double kKaiserAlpha = 4.0;

double kaiser_weight(double x) {
    double t = x / kKaiserRadius;
    if (t * t >= 1.0) return 0.0;
    static const double norm = 1.0 / bessel_i0(kKaiserAlpha);
    return sinc(x) * bessel_i0(kKaiserAlpha * std::sqrt(1.0 - t * t)) * norm;
}

double lanczos3_weight(double x) {
    x = std::fabs(x);
    return x < 3.0 ? sinc(x) * sinc(x / 3.0) : 0.0;
}

// Mitchell–Netravali with B = C = 1/3, the authors' recommended balance of
// blur and ringing.
double mitchell_weight(double x) {
    constexpr double B = 1.0 / 3.0, C = 1.0 / 3.0;
    x = std::fabs(x);
    if (x < 1.0)
        return ((12 - 9 * B - 6 * C) * x * x * x + (-18 + 12 * B + 6 * C) * x * x + (6 - 2 * B)) / 6.0;
    if (x < 2.0)
        return ((-B - 6 * C) * x * x * x + (6 * B + 30 * C) * x * x + (-12 * B - 48 * C) * x + (8 * B + 24 * C)) / 6.0;
    return 0.0;
}

struct NamedFilter {
    std::string_view name;
    Filter filter;
};
constexpr NamedFilter kFilters[] = {{"box", Filter::Box},           {"triangle", Filter::Triangle},
                                    {"kaiser", Filter::Kaiser},     {"lanczos3", Filter::Lanczos3},
                                    {"mitchell", Filter::Mitchell}, {"point", Filter::Point}};

std::string lower(std::string_view s) {
    std::string out(s);
    for (char& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

} // namespace

FilterKernel kernel_of(Filter f) {
    switch (f) {
    case Filter::Point: return {0.5, point_weight};
    case Filter::Box: return {0.5, box_weight};
    case Filter::Triangle: return {1.0, triangle_weight};
    case Filter::Kaiser: return {kKaiserRadius, kaiser_weight};
    case Filter::Lanczos3: return {3.0, lanczos3_weight};
    case Filter::Mitchell: return {2.0, mitchell_weight};
    }
    sdk::usage("unknown filter id " + std::to_string(int(f)));
}

std::string_view filter_name(Filter f) {
    for (const auto& n : kFilters)
        if (n.filter == f) return n.name;
    return "?";
}

} // namespace image_ops

Filter parse_filter(std::string_view name) {
    std::string n = image_ops::lower(name);
    if (n == "lanczos") n = "lanczos3"; // ImageMagick's name for the same kernel
    if (n == "tent" || n == "linear") n = "triangle";
    if (n == "nearest") n = "point";
    for (const auto& f : image_ops::kFilters)
        if (f.name == n) return f.filter;
    sdk::usage("unknown filter '" + std::string(name) +
               "': expected one of box, triangle, kaiser, lanczos3, mitchell, point");
}

Edge parse_edge(std::string_view name) {
    std::string n = image_ops::lower(name);
    if (n == "clamp") return Edge::Clamp;
    if (n == "wrap" || n == "repeat") return Edge::Wrap;
    sdk::usage("unknown edge mode '" + std::string(name) + "': expected clamp or wrap");
}

} // namespace af
