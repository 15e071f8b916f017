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

uint64_t surface_working_bytes(const Texture& a, const Texture& b, const SurfaceRef& s) {
    if (s.depth > 1) return uint64_t(s.width) * s.height * s.depth * (texel_bytes(a) + texel_bytes(b) + 16);
    const uint64_t rows = band_rows(a, b, s.width, s.height);
    return rows * s.width * (texel_bytes(a) + texel_bytes(b)) + uint64_t(s.width) * 480 +
           (s.width < 11 || s.height < 11 ? uint64_t(s.width) * s.height * 16 : 0);
}

// One surface of A against B, a band of rows at a time.
tx::ImageDiff diff_surface(tx::Ops& ops, const Texture& a, const Texture& b, uint32_t l, uint32_t f, uint32_t m) {
    const SurfaceRef sa = a.surface(l, f, m), sb = b.surface(l, f, m);
    if (sa.width != sb.width || sa.height * sa.depth != sb.height * sb.depth)
        throw std::invalid_argument("the images differ in size: " + std::to_string(sa.width) + "x" +
                                    std::to_string(sa.height * sa.depth) + " and " + std::to_string(sb.width) + "x" +
                                    std::to_string(sb.height * sb.depth));
    if (sa.depth > 1 || sb.depth > 1)
        return tx::diff_images(tx::surface_image(ops, a, l, f, m), tx::surface_image(ops, b, l, f, m));
    tx::DiffRows diff(sa.width, sa.height);
    const uint32_t rows = band_rows(a, b, sa.width, sa.height);
    for (uint32_t y = 0; y < sa.height; y += rows)
        diff.add(tx::surface_rows(ops, a, l, f, m, y, rows), tx::surface_rows(ops, b, l, f, m, y, rows));
    return diff.finish();
}

// The first surface's error picture, filled a band at a time into the texture the PNG writer takes.
Texture heatmap_of(tx::Ops& ops, const Texture& a, const Texture& b, double worst) {
    const SurfaceRef s = a.surface(0, 0, 0);
    const uint32_t height = s.height * s.depth;
    TextureDesc d;
    d.width = s.width;
    d.height = height;
    d.format = FMT_R8G8B8A8_UNORM;
    Texture out(d);
    const uint32_t rows = s.depth > 1 ? height : band_rows(a, b, s.width, s.height);
    for (uint32_t y = 0; y < height; y += rows) {
        const Image heat = tx::error_heatmap(tx::surface_rows(ops, a, 0, 0, 0, y, rows),
                                             tx::surface_rows(ops, b, 0, 0, 0, y, rows), worst);
        std::memcpy(out.data.data() + size_t(y) * s.width * 4, heat.rgba8.data(), heat.rgba8.size());
    }
    return out;
}

int run(Context& ctx, const std::vector<std::string>& args) {
    const std::string usage = "assetforge compare A B [--heatmap OUT.png] [--json] [--all-surfaces] "
                              "[--max-error E] [--min-psnr DB] [--memory-budget MIB] [-y]";
    po::options_description opts("options");
    opts.add_options()("heatmap", po::value<std::string>(),
                       "write the per-texel largest error as a PNG ramp "
                       "(black → red → yellow → white at the largest error)")("json", "the figures as JSON")(
        "all-surfaces", "every layer, face and mip (default: the top level of the first)")(
        "max-error", po::value<double>(),
        "exit 1 when any channel's largest error is above E (0..1; 8-bit: levels/255)")(
        "min-psnr", po::value<double>(), "exit 1 when the RGB PSNR of any surface is below DB")(
        "overwrite,y", "replace an existing heatmap file (never A or B)")("a", po::value<std::string>(), "reference")(
        "b", po::value<std::string>(), "the file compared with it");
    add_memory_budget_option(opts);
    po::positional_options_description pos;
    pos.add("a", 1).add("b", 1);
    po::variables_map vm;
    if (auto rc = parse_args(usage, args, opts, pos, vm)) return *rc;
    if (!vm.count("a") || !vm.count("b")) {
        std::fprintf(stderr, "assetforge compare: needs two files\nusage: %s\n", usage.c_str());
        return kExitUsage;
    }
    const std::string pa = vm["a"].as<std::string>(), pb = vm["b"].as<std::string>();
    const bool json = vm.count("json"), all = vm.count("all-surfaces");
    const uint64_t budget = memory_budget_bytes(vm);
    if (budget == 0) {
        std::fprintf(stderr, "assetforge compare: --memory-budget expects a positive number of MiB\n");
        return kExitUsage;
    }
    try {
        // Before anything is read: a refused heatmap costs nothing.
        if (vm.count("heatmap"))
            sdk::check_output_name(vm["heatmap"].as<std::string>(), {pa, pb}, vm.count("overwrite"));
        tx::Ops ops{ctx.registry};
        const Texture a = host::read_texture(ctx.registry, pa).texture;
        const Texture b = host::read_texture(ctx.registry, pb).texture;
        {
            // Checked before any surface is decoded: the files are read, but nothing else is held yet.
            uint64_t peak = 0;
            for (uint32_t l = 0; l < (all ? a.desc.layers : 1); ++l)
                for (uint32_t f = 0; f < (all ? a.desc.faces : 1); ++f)
                    for (uint32_t m = 0; m < (all ? a.desc.mips : 1); ++m)
                        peak = std::max(peak, surface_working_bytes(a, b, a.surface(l, f, m)));
            const SurfaceRef top = a.surface(0, 0, 0);
            const uint64_t heat =
                vm.count("heatmap") ? uint64_t(top.width) * top.height * top.depth * kHeatmapPerTexel : 0;
            const uint64_t need = kFixedBytes + a.data.size() + b.data.size() + peak + heat;
            if (need > budget)
                throw std::runtime_error(pa + " and " + pb + ": comparing them needs an estimated " + mib_text(need) +
                                         (heat ? " (the heatmap " + mib_text(heat) + ")" : std::string()) +
                                         ", more than --memory-budget " + mib_text(budget) + "; raise --memory-budget");
        }
        const TextureDesc &da = a.desc, &dbs = b.desc;
        if (all && (da.layers != dbs.layers || da.faces != dbs.faces || da.mips != dbs.mips))
            throw std::invalid_argument(
                "the files hold different surfaces (layers × faces × mips: " + std::to_string(da.layers) + "×" +
                std::to_string(da.faces) + "×" + std::to_string(da.mips) + " and " + std::to_string(dbs.layers) + "×" +
                std::to_string(dbs.faces) + "×" + std::to_string(dbs.mips) + ")");
        nlohmann::json surfaces = nlohmann::json::array();
        bool over = false;
        double worst = 0;
        for (uint32_t l = 0; l < (all ? da.layers : 1); ++l)
            for (uint32_t f = 0; f < (all ? da.faces : 1); ++f)
                for (uint32_t m = 0; m < (all ? da.mips : 1); ++m) {
                    const tx::ImageDiff d = diff_surface(ops, a, b, l, f, m);
                    nlohmann::json ch;
                    const char* names[4] = {"r", "g", "b", "a"};
                    for (int c = 0; c < 4; ++c) {
                        const auto& x = d.channel[c];
                        ch[names[c]] = {{"psnr", db(x.psnr)}, {"rmse", x.rmse}, {"max_error", x.max_error}};
                        worst = std::max(worst, x.max_error);
                        if (vm.count("max-error") && x.max_error > vm["max-error"].as<double>()) over = true;
                    }
                    if (vm.count("min-psnr") && d.psnr_rgb && *d.psnr_rgb < vm["min-psnr"].as<double>()) over = true;
                    surfaces.push_back({{"layer", l},
                                        {"face", f},
                                        {"mip", m},
                                        {"width", d.width},
                                        {"height", d.height},
                                        {"channels", ch},
                                        {"psnr_rgb", db(d.psnr_rgb)},
                                        {"ssim", d.ssim}});
                    if (!json) {
                        std::printf("%s vs %s: %ux%u, layer %u face %u mip %u\n", pa.c_str(), pb.c_str(), d.width,
                                    d.height, l, f, m);
                        std::printf("  %-8s %16s %10s %12s\n", "channel", "PSNR (dB)", "RMSE", "max error");
                        for (int c = 0; c < 4; ++c) {
                            const auto& x = d.channel[c];
                            std::printf("  %-8c %16s %10.6f %12.6f (%.1f/255)\n", "RGBA"[c], db_text(x.psnr).c_str(),
                                        x.rmse, x.max_error, x.max_error * 255);
                        }
                        std::printf("  RGB PSNR %s dB, SSIM (luminance) %.6f\n", db_text(d.psnr_rgb).c_str(), d.ssim);
                    }
                }
        if (vm.count("heatmap")) {
            // The first surface compared; white at its largest error.
            host::write_texture(ctx.registry, vm["heatmap"].as<std::string>(), heatmap_of(ops, a, b, worst), "png");
            if (!json) std::printf("heatmap: %s (white = %.6f)\n", vm["heatmap"].as<std::string>().c_str(), worst);
        }
        if (json) {
            nlohmann::json doc = {{"surfaces", surfaces}};
            engine::put_name(doc, "a", pa);
            engine::put_name(doc, "b", pb);
            std::printf("%s\n", engine::json_text(doc, 1).c_str());
        }
        if (over) std::fprintf(stderr, "assetforge compare: above the threshold\n");
        return over ? kExitInputFailed : kExitOk;
    } catch (const sdk::Error& e) {
        std::fprintf(stderr, "assetforge compare: %s\n", sdk::printable(e.what()).c_str());
        return e.status() == AF_ERR_USAGE ? kExitUsage : kExitInputFailed;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr,
                     "assetforge compare: %s and %s: out of memory (lower --memory-budget to what the machine "
                     "has, so the estimate refuses such files up front)\n",
                     pa.c_str(), pb.c_str());
        return kExitInputFailed;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "assetforge compare: %s\n", sdk::error_line("comparing " + pa + " with " + pb, e).c_str());
        return kExitInputFailed;
    }
}

RegisterCommand reg{"compare", "How far texture B is from A: PSNR, RMSE, max error, SSIM, heatmap", run};

} // namespace
} // namespace af::cli
