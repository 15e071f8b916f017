// `assetforge compare A B`: how far texture B is from texture A (texdiag's
// diff, nvimgdiff) for any two files the containers read — PNG, DDS, XTF,
// VTF — surface by surface: per-channel PSNR, RMSE and largest error, SSIM on
// luminance, an error heatmap, and an exit status for CI thresholds.
#include "cli/cli_options.hpp"

#include "assetforge/plugin.hpp"
#include "assetforge/user_text.hpp"
#include "engine/name_text.hpp"
#include "host/texture_io.hpp"
#include "texture/image_diff.hpp"
#include "texture/texture_ops.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdio>
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

int run(Context& ctx, const std::vector<std::string>& args) {
    const std::string usage = "assetforge compare A B [--heatmap OUT.png] [--json] [--all-surfaces] "
                              "[--max-error E] [--min-psnr DB]";
    po::options_description opts("options");
    opts.add_options()("heatmap", po::value<std::string>(),
                       "write the per-texel largest error as a PNG ramp "
                       "(black → red → yellow → white at the largest error)")("json", "the figures as JSON")(
        "all-surfaces", "every layer, face and mip (default: the top level of the first)")(
        "max-error", po::value<double>(),
        "exit 1 when any channel's largest error is above E (0..1; 8-bit: levels/255)")(
        "min-psnr", po::value<double>(), "exit 1 when the RGB PSNR of any surface is below DB")(
        "a", po::value<std::string>(), "reference")("b", po::value<std::string>(), "the file compared with it");
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
    try {
        tx::Ops ops{ctx.registry};
        const Texture a = host::read_texture(ctx.registry, pa).texture;
        const Texture b = host::read_texture(ctx.registry, pb).texture;
        const TextureDesc &da = a.desc, &dbs = b.desc;
        if (all && (da.layers != dbs.layers || da.faces != dbs.faces || da.mips != dbs.mips))
            throw std::invalid_argument(
                "the files hold different surfaces (layers × faces × mips: " + std::to_string(da.layers) + "×" +
                std::to_string(da.faces) + "×" + std::to_string(da.mips) + " and " + std::to_string(dbs.layers) + "×" +
                std::to_string(dbs.faces) + "×" + std::to_string(dbs.mips) + ")");
        nlohmann::json surfaces = nlohmann::json::array();
        bool over = false;
        double worst = 0;
        std::optional<Image> heat_a, heat_b;
        for (uint32_t l = 0; l < (all ? da.layers : 1); ++l)
            for (uint32_t f = 0; f < (all ? da.faces : 1); ++f)
                for (uint32_t m = 0; m < (all ? da.mips : 1); ++m) {
                    Image ia = tx::surface_image(ops, a, l, f, m), ib = tx::surface_image(ops, b, l, f, m);
                    const tx::ImageDiff d = tx::diff_images(ia, ib);
                    if (!heat_a) heat_a = std::move(ia), heat_b = std::move(ib);
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
            host::write_texture(ctx.registry, vm["heatmap"].as<std::string>(),
                                host::image_to_texture(tx::error_heatmap(*heat_a, *heat_b, worst)), "png");
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
    } catch (const std::exception& e) {
        std::fprintf(stderr, "assetforge compare: %s\n", sdk::error_line("comparing " + pa + " with " + pb, e).c_str());
        return kExitInputFailed;
    }
}

RegisterCommand reg{"compare", "How far texture B is from A: PSNR, RMSE, max error, SSIM, heatmap", run};

} // namespace
} // namespace af::cli
