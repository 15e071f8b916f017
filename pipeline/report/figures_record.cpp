#include "report/figures_record.hpp"

namespace af::report {

namespace {

nlohmann::json opt_db(const std::optional<double>& v) { return v ? nlohmann::json(*v) : nlohmann::json(nullptr); }
std::optional<double> db_opt(const nlohmann::json& j) {
    return j.is_null() ? std::nullopt : std::optional<double>(j.get<double>());
}

} // namespace

nlohmann::json figures_json(const base::ReportFigures& f) {
    nlohmann::json psnr = nlohmann::json::array();
    for (const auto& p : f.psnr) psnr.push_back(opt_db(p));
    return {{"id", f.id},
            {"size", {f.width, f.height, f.result_width, f.result_height}},
            {"picture", {f.picture_width, f.picture_height, f.result_picture_width, f.result_picture_height}},
            {"compared", f.compared},
            {"psnr", psnr},
            {"psnr_rgb", opt_db(f.psnr_rgb)},
            {"max_error", f.max_error},
            {"heat_scale", f.heat_scale},
            {"difference", f.difference},
            {"alpha_picture", f.alpha_picture},
            {"colour_scale", f.colour_scale},
            {"alpha_scale", f.alpha_scale},
            {"kept", f.kept},
            {"result_format", f.result_format},
            {"bytes", f.bytes},
            {"normal_map", f.normal_map},
            {"note", f.note}};
}

base::ReportFigures figures_from_json(const nlohmann::json& j) {
    base::ReportFigures f;
    f.id = j.at("id").get<std::string>();
    const auto& size = j.at("size");
    f.width = size.at(0), f.height = size.at(1), f.result_width = size.at(2), f.result_height = size.at(3);
    const auto& pic = j.at("picture");
    f.picture_width = pic.at(0), f.picture_height = pic.at(1);
    f.result_picture_width = pic.at(2), f.result_picture_height = pic.at(3);
    f.compared = j.at("compared").get<bool>();
    for (size_t c = 0; c < 4; ++c) f.psnr[c] = db_opt(j.at("psnr").at(c));
    f.psnr_rgb = db_opt(j.at("psnr_rgb"));
    for (size_t c = 0; c < 4; ++c) f.max_error[c] = j.at("max_error").at(c).get<double>();
    f.heat_scale = j.at("heat_scale").get<double>();
    f.difference = j.at("difference").get<bool>();
    f.alpha_picture = j.at("alpha_picture").get<bool>();
    f.colour_scale = j.at("colour_scale").get<double>();
    f.alpha_scale = j.at("alpha_scale").get<double>();
    f.kept = j.at("kept").get<uint8_t>();
    f.result_format = j.at("result_format").get<std::string>();
    f.bytes = j.at("bytes").get<uint64_t>();
    f.normal_map = j.at("normal_map").get<bool>();
    f.note = j.at("note").get<std::string>();
    return f;
}

std::map<std::string, KeptFigures> parse_kept_figures(const std::string& text) {
    std::map<std::string, KeptFigures> out;
    try {
        const auto doc = nlohmann::json::parse(text);
        for (const auto& e : doc.at("actions")) {
            KeptFigures k{e.at("key").get<std::string>(), figures_from_json(e.at("figures"))};
            out[k.figures.id] = std::move(k);
        }
    } catch (const nlohmann::json::exception&) {
        return {};
    }
    return out;
}

std::string kept_figures_text(const std::map<std::string, KeptFigures>& kept) {
    nlohmann::json actions = nlohmann::json::array();
    for (const auto& [id, k] : kept) actions.push_back({{"key", k.key}, {"figures", figures_json(k.figures)}});
    return nlohmann::json{{"version", 1}, {"actions", actions}}.dump() + "\n";
}

} // namespace af::report
