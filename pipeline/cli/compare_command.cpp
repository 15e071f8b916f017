// `assetforge compare A B`: how far texture B is from texture A (texdiag's
// diff, nvimgdiff) for any two files the containers read — PNG, DDS, XTF,
// VTF — surface by surface: per-channel PSNR, RMSE and largest error, SSIM on
// luminance, an error heatmap, and an exit status for CI thresholds.
#include "cli/cli_options.hpp"
#include "cli/memory_budget_option.hpp"

#include "assetforge/output_rules.hpp"
#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"
#include "base/name_text.hpp"
#include "host/texture_io.hpp"
#include "texture/image_diff.hpp"
#include "texture/texture_ops.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <new>
#include <optional>

namespace af::cli {
namespace {

namespace tx = af::texture;

nlohmann::json db(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }

std::string db_text(const std::optional<double>& v) {
    char b[32];
    if (!v) return "inf (identical)";
    snprintf(b, sizeof b, "%.2f", *v);
    return b;
}

// What `compare` holds besides the two files: per surface, a band of rows of
// each decoded (about kBandBytes each, at least one block row) and the SSIM
// window's sums (440 B per column); with --heatmap, the RGBA8 picture of the
// first surface (4 B/texel) and the PNG writer's copies, rows and compressed
// bytes (21 B/texel in all measured on 4096² noise; 24 counted). Surfaces are
// compared one at a time.
constexpr uint64_t kBandBytes = 8u << 20;
constexpr uint64_t kFixedBytes = 32u << 20; // the process, plugins, JSON
constexpr uint64_t kHeatmapPerTexel = 24;

uint32_t texel_bytes(const Texture& t) { return format_info(t.desc.format)->decodes_to_float() ? 16 : 4; }

uint32_t band_rows(const Texture& a, const Texture& b, uint32_t width, uint32_t height) {
    const uint64_t per_row = uint64_t(width) * std::max(texel_bytes(a), texel_bytes(b));
    uint64_t rows = std::max<uint64_t>(4, kBandBytes / std::max<uint64_t>(per_row, 1)) / 4 * 4;
    return uint32_t(std::min<uint64_t>(rows, height));
}

uint64_t surface_working_bytes(const Texture& a, const Texture& b, const ImageView& s) {
    if (s.depth > 1) return uint64_t(s.width) * s.height * s.depth * (texel_bytes(a) + texel_bytes(b) + 16);
    const uint64_t rows = band_rows(a, b, s.width, s.height);
    return rows * s.width * (texel_bytes(a) + texel_bytes(b)) + uint64_t(s.width) * 480 +
           (s.width < 11 || s.height < 11 ? uint64_t(s.width) * s.height * 16 : 0);
}

// A band of one surface as every measure sees it (SNORM as 0..1, texture::measured_rows), with Z rebuilt where
// the rule says (texture::normal_z).
Texture band(tx::Ops& ops, const Texture& t, bool rebuild_z, uint32_t l, uint32_t f, uint32_t m, uint32_t y,
             uint32_t rows) {
    Texture img = tx::measured_rows(ops, t, l, f, m, y, rows);
    return rebuild_z ? tx::with_normal_z(img) : img;
}

struct Pair {
    const Texture& a;
    const Texture& b;
    tx::NormalZ z;
};

// One surface of A against B, a band of rows at a time.
tx::ImageDiff diff_surface(tx::Ops& ops, const Pair& p, uint32_t l, uint32_t f, uint32_t m) {
    const ImageView sa = p.a.surface(l, f, m), sb = p.b.surface(l, f, m);
    if (sa.width != sb.width || sa.height * sa.depth != sb.height * sb.depth)
        throw std::invalid_argument("the images differ in size: " + std::to_string(sa.width) + "x" +
                                    std::to_string(sa.height * sa.depth) + " and " + std::to_string(sb.width) + "x" +
                                    std::to_string(sb.height * sb.depth));
    if (sa.depth > 1 || sb.depth > 1)
        return tx::diff_images(band(ops, p.a, p.z.rebuild_reference, l, f, m, 0, sa.height * sa.depth).surface(0, 0, 0),
                               band(ops, p.b, p.z.rebuild_result, l, f, m, 0, sb.height * sb.depth).surface(0, 0, 0));
    tx::DiffRows diff(sa.width, sa.height);
    const uint32_t rows = band_rows(p.a, p.b, sa.width, sa.height);
    for (uint32_t y = 0; y < sa.height; y += rows)
        diff.add(band(ops, p.a, p.z.rebuild_reference, l, f, m, y, rows).surface(0, 0, 0),
                 band(ops, p.b, p.z.rebuild_result, l, f, m, y, rows).surface(0, 0, 0));
    return diff.finish();
}

// The first surface's error picture, filled a band at a time into the texture the PNG writer takes.
Texture heatmap_of(tx::Ops& ops, const Pair& p, double worst) {
    const ImageView s = p.a.surface(0, 0, 0);
    const uint32_t height = s.height * s.depth;
    TextureDesc d;
    d.width = s.width;
    d.height = height;
    d.format = FMT_R8G8B8A8_UNORM;
    Texture out(d);
    const uint32_t rows = s.depth > 1 ? height : band_rows(p.a, p.b, s.width, s.height);
    for (uint32_t y = 0; y < height; y += rows) {
        const Texture heat =
            tx::error_heatmap(band(ops, p.a, p.z.rebuild_reference, 0, 0, 0, y, rows).surface(0, 0, 0),
                              band(ops, p.b, p.z.rebuild_result, 0, 0, 0, y, rows).surface(0, 0, 0), worst);
        std::memcpy(out.data.data() + size_t(y) * s.width * 4, heat.data.data(), heat.data.size());
    }
    return out;
}

struct CompareArgs {
    std::string a, b, heatmap;
    bool json = false, all = false, overwrite = false;
    std::optional<double> max_error, min_psnr, heatmap_scale;
    uint64_t budget = 0;
};

// A threshold on the wrong scale can never trigger (--max-error 10 for 10/255): refused, with the right value.
std::optional<int> check_ranges(const CompareArgs& c) {
    auto refuse = [](const std::string& why) {
        std::fprintf(stderr, "assetforge compare: %s\n", why.c_str());
        return std::optional<int>(kExitUsage);
    };
    if (c.max_error && (*c.max_error < 0 || *c.max_error > 1))
        return refuse(sdk::format("--max-error %g is outside 0..1: errors are fractions of full scale (%g/255 is "
                                  "--max-error %.4f)",
                                  *c.max_error, *c.max_error, *c.max_error / 255));
    if (c.heatmap_scale && (*c.heatmap_scale <= 0 || *c.heatmap_scale > 1))
        return refuse(sdk::format("--heatmap-scale %g is outside (0, 1]: the error shown white, as a fraction of full "
                                  "scale (%g/255 is %.4f)",
                                  *c.heatmap_scale, *c.heatmap_scale, *c.heatmap_scale / 255));
    if (c.min_psnr && (*c.min_psnr <= 0 || *c.min_psnr > 200))
        return refuse(sdk::format("--min-psnr %g is outside (0, 200] dB", *c.min_psnr));
    return std::nullopt;
}

// The arguments, or the exit status when they are not usable.
std::optional<int> parse_compare(const std::vector<std::string>& args, CompareArgs& c) {
    const std::string usage = "assetforge compare A B [--heatmap OUT.png] [--json] [--all-surfaces] "
                              "[--heatmap-scale MAX] [--max-error E] [--min-psnr DB] [--memory-budget MIB] [-y]";
    po::options_description opts("options");
    opts.add_options()("heatmap", po::value<std::string>(),
                       "write the per-texel largest error as a PNG ramp "
                       "(black → red → yellow → white at the largest error, or at --heatmap-scale)")(
        "heatmap-scale", po::value<double>(),
        "the error shown white, fixed (0..1; 8-bit: levels/255), so heatmaps of several files compare")(
        "json", "the figures as JSON")("all-surfaces",
                                       "every layer, face and mip (default: the top level of the first)")(
        "max-error", po::value<double>(),
        "exit 1 when any channel's largest error is above E (0..1; 8-bit: levels/255)")(
        "min-psnr", po::value<double>(),
        "exit 1 when the RGB PSNR of any surface is below DB (alpha-weighted when A has alpha)")(
        "overwrite,y", "replace an existing heatmap file (never A or B)")("a", po::value<std::string>(), "reference")(
        "b", po::value<std::string>(), "the file compared with it");
    add_memory_budget_option(opts);
    po::positional_options_description pos;
    pos.add("a", 1).add("b", 1);
    po::variables_map vm;
    if (auto rc = parse_args(usage, args, opts, pos, vm)) return rc;
    if (!vm.count("a") || !vm.count("b")) {
        std::fprintf(stderr, "assetforge compare: needs two files\nusage: %s\n", usage.c_str());
        return kExitUsage;
    }
    c.a = vm["a"].as<std::string>(), c.b = vm["b"].as<std::string>();
    c.json = vm.count("json"), c.all = vm.count("all-surfaces"), c.overwrite = vm.count("overwrite");
    if (vm.count("heatmap")) c.heatmap = vm["heatmap"].as<std::string>();
    if (vm.count("max-error")) c.max_error = vm["max-error"].as<double>();
    if (vm.count("min-psnr")) c.min_psnr = vm["min-psnr"].as<double>();
    if (vm.count("heatmap-scale")) c.heatmap_scale = vm["heatmap-scale"].as<double>();
    if (auto rc = check_ranges(c)) return rc;
    c.budget = memory_budget_bytes(vm);
    if (c.budget == 0) {
        std::fprintf(stderr, "assetforge compare: --memory-budget expects a positive number of MiB\n");
        return kExitUsage;
    }
    return std::nullopt;
}

// Checked before any surface is decoded: the files are read, but nothing else is held yet.
void check_budget(const CompareArgs& c, const Texture& a, const Texture& b) {
    uint64_t peak = 0;
    for (uint32_t l = 0; l < (c.all ? a.desc.layers : 1); ++l)
        for (uint32_t f = 0; f < (c.all ? a.desc.faces : 1); ++f)
            for (uint32_t m = 0; m < (c.all ? a.desc.mips : 1); ++m)
                peak = std::max(peak, surface_working_bytes(a, b, a.surface(l, f, m)));
    const ImageView top = a.surface(0, 0, 0);
    const uint64_t heat = c.heatmap.empty() ? 0 : uint64_t(top.width) * top.height * top.depth * kHeatmapPerTexel;
    const uint64_t need = kFixedBytes + a.data.size() + b.data.size() + peak + heat;
    if (need > c.budget)
        throw std::runtime_error(c.a + " and " + c.b + ": comparing them needs an estimated " + mib_text(need) +
                                 (heat ? " (the heatmap " + mib_text(heat) + ")" : std::string()) +
                                 ", more than --memory-budget " + mib_text(c.budget) + "; raise --memory-budget");
}

void check_same_surfaces(const TextureDesc& da, const TextureDesc& dbs) {
    if (da.layers != dbs.layers || da.faces != dbs.faces || da.mips != dbs.mips)
        throw std::invalid_argument(
            "the files hold different surfaces (layers × faces × mips: " + std::to_string(da.layers) + "×" +
            std::to_string(da.faces) + "×" + std::to_string(da.mips) + " and " + std::to_string(dbs.layers) + "×" +
            std::to_string(dbs.faces) + "×" + std::to_string(dbs.mips) + ")");
}

void print_surface(const CompareArgs& c, const tx::ImageDiff& d, uint32_t l, uint32_t f, uint32_t m) {
    std::printf("%s vs %s: %ux%u, layer %u face %u mip %u\n", c.a.c_str(), c.b.c_str(), d.width, d.height, l, f, m);
    std::printf("  %-8s %16s %10s %12s\n", "channel", "PSNR (dB)", "RMSE", "max error");
    for (int ch = 0; ch < 4; ++ch) {
        const auto& x = d.channel[ch];
        std::printf("  %-8c %16s %10.6f %12.6f (%.1f/255)\n", "RGBA"[ch], db_text(x.psnr).c_str(), x.rmse, x.max_error,
                    x.max_error * 255);
    }
    std::printf("  RGB PSNR %s dB, SSIM (luminance) %.6f\n", db_text(d.psnr_rgb).c_str(), d.ssim);
    if (d.has_alpha)
        std::printf("  RGB PSNR weighted by A's alpha %s dB (colour under transparent texels not counted)\n",
                    db_text(d.psnr_rgb_alpha_weighted).c_str());
}

// Every surface compared: the JSON array, the largest error of any channel,
// and whether a threshold was crossed.
struct Compared {
    nlohmann::json surfaces = nlohmann::json::array();
    double worst = 0;
    bool over = false;
};

Compared compare_surfaces(tx::Ops& ops, const CompareArgs& c, const Pair& p) {
    Compared r;
    const TextureDesc& da = p.a.desc;
    for (uint32_t l = 0; l < (c.all ? da.layers : 1); ++l)
        for (uint32_t f = 0; f < (c.all ? da.faces : 1); ++f)
            for (uint32_t m = 0; m < (c.all ? da.mips : 1); ++m) {
                const tx::ImageDiff d = diff_surface(ops, p, l, f, m);
                nlohmann::json ch;
                const char* names[4] = {"r", "g", "b", "a"};
                for (int k = 0; k < 4; ++k) {
                    const auto& x = d.channel[k];
                    ch[names[k]] = {{"psnr", db(x.psnr)}, {"rmse", x.rmse}, {"max_error", x.max_error}};
                    r.worst = std::max(r.worst, x.max_error);
                    if (c.max_error && x.max_error > *c.max_error) r.over = true;
                }
                // With alpha, the figure of what a player sees: colour under transparent texels is not counted.
                const std::optional<double> headline = d.has_alpha ? d.psnr_rgb_alpha_weighted : d.psnr_rgb;
                if (c.min_psnr && headline && *headline < *c.min_psnr) r.over = true;
                r.surfaces.push_back(
                    {{"layer", l},
                     {"face", f},
                     {"mip", m},
                     {"width", d.width},
                     {"height", d.height},
                     {"channels", ch},
                     {"psnr_rgb", db(d.psnr_rgb)},
                     {"psnr_rgb_alpha_weighted", d.has_alpha ? db(d.psnr_rgb_alpha_weighted) : nlohmann::json(nullptr)},
                     {"ssim", d.ssim}});
                if (!c.json) print_surface(c, d, l, f, m);
            }
    return r;
}

int compare_files(Context& ctx, const CompareArgs& c) {
    // Before anything is read: a refused heatmap costs nothing.
    if (!c.heatmap.empty()) sdk::check_output_name(c.heatmap, {c.a, c.b}, c.overwrite);
    tx::Ops ops{ctx.registry};
    const Texture a = host::read_texture(ctx.registry, c.a).texture;
    const Texture b = host::read_texture(ctx.registry, c.b).texture;
    check_budget(c, a, b);
    if (c.all) check_same_surfaces(a.desc, b.desc);
    // A normal map that keeps X and Y only is compared as the shader sees
    // it, Z rebuilt, as the build's report compares it.
    const Pair p{a, b, tx::normal_z(a, b)};
    const Compared r = compare_surfaces(ops, c, p);
    if (!c.json && (p.z.rebuild_reference || p.z.rebuild_result))
        std::printf("blue rebuilt as Z from the stored X and Y (%s)\n", p.z.rebuild_reference && p.z.rebuild_result
                                                                            ? "both"
                                                                        : p.z.rebuild_result ? "B"
                                                                                             : "A");
    if (!c.heatmap.empty()) {
        // The first surface compared; white at --heatmap-scale, else at its largest error.
        const double white = c.heatmap_scale.value_or(r.worst);
        host::write_texture(ctx.registry, c.heatmap, heatmap_of(ops, p, white), "png");
        if (!c.json)
            std::printf("heatmap: %s (white = %.6f = %.1f/255%s)\n", c.heatmap.c_str(), white, white * 255,
                        c.heatmap_scale ? ", --heatmap-scale" : ", the largest error");
    }
    if (c.json) {
        nlohmann::json doc = {{"surfaces", r.surfaces}};
        base::put_name(doc, "a", c.a);
        base::put_name(doc, "b", c.b);
        if (p.z.rebuild_reference || p.z.rebuild_result)
            doc["normal_z_rebuilt"] = {{"a", p.z.rebuild_reference}, {"b", p.z.rebuild_result}};
        std::printf("%s\n", base::json_text(doc, 1).c_str());
    }
    if (r.over) std::fprintf(stderr, "assetforge compare: above the threshold\n");
    return r.over ? kExitInputFailed : kExitOk;
}

int run_compare(Context& ctx, const std::vector<std::string>& args) {
    CompareArgs c;
    if (auto rc = parse_compare(args, c)) return *rc;
    try {
        return compare_files(ctx, c);
    } catch (const sdk::Error& e) {
        std::fprintf(stderr, "assetforge compare: %s\n", sdk::printable(e.what()).c_str());
        return e.status() == AF_ERR_USAGE ? kExitUsage : kExitInputFailed;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr,
                     "assetforge compare: %s and %s: out of memory (lower --memory-budget to what the machine "
                     "has, so the estimate refuses such files up front)\n",
                     c.a.c_str(), c.b.c_str());
        return kExitInputFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "assetforge compare: %s\n",
                     sdk::error_line("comparing " + c.a + " with " + c.b, e).c_str());
        return kExitInputFailed;
    }
}

RegisterCommand compare_command{"compare", "How far texture B is from A: PSNR, RMSE, max error, SSIM, heatmap",
                                run_compare};

} // namespace
} // namespace af::cli
