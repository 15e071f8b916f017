#include "report/html_report.hpp"

#include "base/markup_text.hpp"
#include "report/action_warnings.hpp"
#include "report/report_images.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <system_error>
#include <vector>

namespace af::engine {
namespace fs = std::filesystem;

namespace {

uint64_t size_of(const fs::path& root, const std::string& rel) {
    std::error_code ec;
    const fs::path p = fs::path(rel).is_absolute() ? fs::path(rel) : root / rel;
    const auto n = fs::file_size(p, ec);
    return ec ? 0 : uint64_t(n);
}

std::string bytes_text(uint64_t n) {
    char b[32];
    if (n >= (1u << 20))
        snprintf(b, sizeof b, "%.1f MiB", double(n) / (1 << 20));
    else if (n >= 1024)
        snprintf(b, sizeof b, "%.1f KiB", double(n) / 1024);
    else
        snprintf(b, sizeof b, "%llu B", static_cast<unsigned long long>(n));
    return b;
}

// Failures first, then what ran, then the rest.
int rank(ActionStatus s) {
    switch (s) {
    case ActionStatus::Failed:
        return 0;
    case ActionStatus::Built:
        return 1;
    case ActionStatus::Cached:
        return 2;
    case ActionStatus::NotRun:
        return 3;
    case ActionStatus::Removed:
        return 4;
    default:
        return 5;
    }
}

const char* kStyle = R"(body{font:14px system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.3em}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;padding:4px 6px;
text-align:left;vertical-align:top}th{background:#f4f4f4;cursor:pointer;position:sticky;top:0}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}.failed{background:#fde8e8}.failed td.st{color:#b00;
font-weight:bold}.cached td.st{color:#06c}.built td.st{color:#070}.err{font-family:monospace;white-space:pre-wrap;
color:#900}.warn{color:#a60}.sum td{border:0;padding:2px 12px 2px 0}input{margin:0 0 8px 0;padding:4px;width:24em}
.pic{white-space:nowrap}.pic img{margin-right:4px;vertical-align:top}
.pic img,.fig img{background:repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/16px 16px;image-rendering:pixelated}
.fig{display:flex;flex-wrap:wrap;gap:12px}.fig figure{margin:0}.fig img{max-width:100%;height:auto}
section.v{border-top:1px solid #ddd;padding:6px 0}section.v h3{font-size:1em;margin:6px 0}
.diff{position:relative;display:inline-block;background:#000;line-height:0}
td.err{min-width:14em}.fig .diff img{display:block;background:none}
.diff img+img{position:absolute;left:0;top:0;mix-blend-mode:difference})";

// Sorting by a header click, filtering by the text box: the page reads the same without them.
const char* kScript = R"(function filt(v){v=v.toLowerCase();for(const r of document.querySelectorAll('#acts tbody tr'))
r.style.display=r.textContent.toLowerCase().includes(v)?'':'none'}
function srt(i){const b=document.querySelector('#acts tbody'),rs=[...b.rows],d=b.dataset.d=='a'?'d':'a';b.dataset.d=d;
rs.sort((x,y)=>{const p=x.cells[i].dataset.v??x.cells[i].textContent,q=y.cells[i].dataset.v??y.cells[i].textContent;
const m=parseFloat(p),n=parseFloat(q),c=!isNaN(m)&&!isNaN(n)?m-n:p.localeCompare(q);return d=='a'?c:-c});
for(const r of rs)b.appendChild(r)})";

std::string db_text(const std::optional<double>& v) {
    if (!v) return "∞"; // identical
    char b[32];
    snprintf(b, sizeof b, "%.2f", *v);
    return b;
}

// Errors in 8-bit levels (what a modder compares with an image editor).
std::string levels_text(double e) {
    char b[32];
    snprintf(b, sizeof b, "%.4g", std::round(e * 2550) / 10);
    return b;
}

// Width and height attributes fitting `side` px: small textures scaled up by
// a whole factor (pixelated, so texels stay visible), large ones scaled down.
std::string size_attrs(uint32_t w, uint32_t h, uint32_t side) {
    const uint32_t m = std::max(1u, std::max(w, h));
    const double k = m > side ? double(side) / m : double(std::max(1u, side / m));
    auto px = [&](uint32_t v) { return std::to_string(std::max(1L, std::lround(v * k))); };
    return " width=\"" + px(w) + "\" height=\"" + px(h) + "\"";
}

std::vector<std::string> warnings_of(const ActionResult& a) { return warning_lines(a); }

// The sentence that explains an error as large as the whole range: the
// format kept no alpha (or one bit of it), so the difference is the alpha.
std::string alpha_loss_note(const ActionResult& a) {
    for (const auto& w : warnings_of(a))
        if (w.rfind("alpha dropped", 0) == 0 || w.rfind("alpha reduced", 0) == 0)
            return "the alpha error is the format's, not the encoder's: " + w;
    return "";
}

// Mip 0 of the source, of the result and their difference at full size.
std::string picture_section(const ActionResult& a, const std::string& href) {
    const ReportFigures& f = *a.images;
    const std::string p = href + f.id;
    // Full size, and small textures zoomed to 256 px by a whole factor.
    auto zoom = [](uint32_t w, uint32_t h) { return size_attrs(w, h, std::max({256u, w, h})); };
    auto img = [&](const std::string& file, const std::string& alt, uint32_t w, uint32_t h) {
        return "<img loading=\"lazy\" src=\"" + p + file + "\" alt=\"" + alt + "\"" + zoom(w, h) + ">";
    };
    auto fig = [&](const std::string& file, const std::string& alt, uint32_t w, uint32_t h, const std::string& cap) {
        return "<figure><a href=\"" + p + file + "\">" + img(file, alt, w, h) + "</a><figcaption>" + cap +
               "</figcaption></figure>";
    };
    auto dims = [](uint32_t w, uint32_t h) { return std::to_string(w) + "×" + std::to_string(h); };
    std::string out = "<section class=\"v\" id=\"v-" + f.id + "\"><h3>" + markup_text(a.job + ": " + a.input) + "</h3>";
    if (!f.note.empty()) out += "<p>" + markup_text(f.note) + "</p>";
    out += "<div class=\"fig\">" +
           fig(".src.png", "source", f.width, f.height, "source, mip 0, " + dims(f.width, f.height)) +
           fig(".res.png", "result", f.result_width, f.result_height,
               "result, mip 0, " + dims(f.result_width, f.result_height) + (f.normal_map ? " (normal map)" : ""));
    // The difference drawn by the browser: the result over the source in
    // CSS's `difference` blend, |result − source| per channel, brightened so
    // the largest error is near white. No script, and no third PNG to make.
    if (f.compared) {
        const long k = std::clamp(std::lround(1 / f.heat_scale), 1L, 64L);
        out += "<figure><div class=\"diff\" style=\"filter:brightness(" + std::to_string(k) + ")\">" +
               img(".src.png", "source", f.result_width, f.result_height) +
               img(".res.png", "result (difference blend)", f.result_width, f.result_height) +
               "</div><figcaption>difference |result − source| per channel ×" + std::to_string(k) + " (largest error " +
               levels_text(f.heat_scale) + "/255)" +
               (alpha_loss_note(a).empty() ? "" : "<br>" + markup_text(alpha_loss_note(a))) + "</figcaption></figure>";
    }
    return out + "</div><p><a href=\"#a-" + f.id + "\">back to the table</a></p></section>\n";
}

// The page's parts that its actions make, summed as each is added.
struct Page {
    std::string rows, sections;
    size_t pictured = 0, warnings = 0;
    uint64_t in_total = 0, out_total = 0;
};

// One action's row of the table (and its pictures' section).
void add_action(Page& pg, const ActionResult& a, const fs::path& root, const std::string& images_href) {
    uint64_t in = 0, out = 0;
    for (const auto& f : a.inputs) in += size_of(root, f);
    for (const auto& f : a.outputs) out += size_of(root, f);
    if (a.status == ActionStatus::Built || a.status == ActionStatus::Cached) pg.in_total += in, pg.out_total += out;
    std::string format, why, psnr, normal, weighted;
    if (a.metrics.is_object()) {
        if (a.metrics.contains("format")) format = a.metrics["format"].get<std::string>();
        if (a.metrics.contains("normal_map") && a.metrics["normal_map"].is_string())
            normal = a.metrics["normal_map"].get<std::string>();
        if (a.metrics.contains("format_reason")) why = a.metrics["format_reason"].get<std::string>();
        if (a.metrics.contains("psnr_rgb") && a.metrics["psnr_rgb"].is_number()) {
            char b[32];
            snprintf(b, sizeof b, "%.2f", a.metrics["psnr_rgb"].get<double>());
            psnr = b;
        }
        if (a.metrics.contains("psnr_rgb_alpha_weighted") && a.metrics["psnr_rgb_alpha_weighted"].is_number()) {
            char b[32];
            snprintf(b, sizeof b, "%.2f", a.metrics["psnr_rgb_alpha_weighted"].get<double>());
            weighted = b;
        }
    }
    std::string channels, max_err, pics, row_id;
    if (const ReportFigures* f = a.images.get(); f && !images_href.empty()) {
        row_id = " id=\"a-" + f->id + "\"";
        if (f->compared) {
            double worst_db = 1e9, worst_err = 0;
            for (int c = 0; c < 4; ++c) {
                const std::string name = std::string(c ? "<br>" : "") + "RGBA"[c] + " ";
                channels += name + db_text(f->psnr[c]);
                max_err += name + levels_text(f->max_error[c]);
                if (f->psnr[c]) worst_db = std::min(worst_db, *f->psnr[c]);
                worst_err = std::max(worst_err, f->max_error[c]);
            }
            channels = "<td class=\"n\" data-v=\"" + std::to_string(worst_db) + "\">" + channels + "</td>";
            if (const std::string note = alpha_loss_note(a); !note.empty())
                max_err += "<br><small class=\"warn\">" + markup_text(note) + "</small>";
            max_err = "<td class=\"n\" data-v=\"" + std::to_string(worst_err) + "\">" + max_err + "</td>";
            // The report's own figure (as `compare` measures it; normal maps
            // with Z rebuilt), and the encode step's when it says otherwise.
            const std::string step = psnr;
            psnr = db_text(f->psnr_rgb);
            if (!step.empty() && step != psnr && !(step == "99.00" && !f->psnr_rgb))
                psnr += "<br><small>(encode step: " + step + ")</small>";
        }
        // Colour under transparent texels counted by its alpha: the figure of what a player sees.
        if (!weighted.empty()) psnr += "<br><small>alpha-weighted: " + weighted + "</small>";
        if (f->width) {
            const std::string p = images_href + f->id, t = has_thumbnails(*f) ? ".t" : "";
            pics = "<a href=\"#v-" + f->id + "\"><img src=\"" + p + ".src" + t + ".png\" alt=\"source\"" +
                   size_attrs(f->width, f->height, kThumbnailSide) + "><img src=\"" + p + ".res" + t +
                   ".png\" alt=\"result\"" + size_attrs(f->result_width, f->result_height, kThumbnailSide) + "></a>";
            pg.sections += picture_section(a, images_href);
            ++pg.pictured;
        } else {
            pics = markup_text(f->note);
        }
    }
    if (channels.empty()) channels = "<td class=\"n\"></td>", max_err = "<td class=\"n\"></td>";
    std::string outs;
    for (const auto& o : a.outputs) outs += (outs.empty() ? "" : "<br>") + markup_text(o);
    char dur[32];
    snprintf(dur, sizeof dur, "%.1f", a.duration_ms);
    const std::string st(to_string(a.status));
    std::string problems = a.error.empty() ? "" : markup_text("step '" + a.failed_step + "': " + a.error);
    for (const auto& w : warnings_of(a)) {
        problems +=
            std::string(problems.empty() ? "" : "<br>") + "<span class=\"warn\">warning: " + markup_text(w) + "</span>";
        ++pg.warnings;
    }
    for (const auto& l : plugin_log_lines(a))
        problems += std::string(problems.empty() ? "" : "<br>") + "<span class=\"log\">" + markup_text(l) + "</span>";
    pg.rows += "<tr class=\"" + st + "\"" + row_id + "><td>" + markup_text(a.job) + "</td><td>" + markup_text(a.input) +
               "</td><td class=\"st\">" + st + "</td><td class=\"err\">" + problems + "</td><td>" +
               markup_text(a.reason) + "</td><td>" + markup_text(format) +
               (why.empty() ? "" : " <small>(" + markup_text(why) + ")</small>") +
               (normal.empty() ? "" : "<br><small>normal map: " + markup_text(normal) + "</small>") +
               "</td><td class=\"pic\">" + pics + "</td><td class=\"n\">" + psnr + "</td>" + channels + max_err +
               "<td class=\"n\" data-v=\"" + std::to_string(in) + "\">" + bytes_text(in) +
               "</td><td class=\"n\" data-v=\"" + std::to_string(out) + "\">" + bytes_text(out) +
               "</td><td class=\"n\">" + dur + "</td><td>" + outs + "</td></tr>\n";
}

} // namespace

bool is_html_report(const std::string& file) {
    for (const std::string e : {".html", ".htm"})
        if (file.size() > e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0) return true;
    return false;
}

std::string html_report(const BuildSummary& s, const std::string& pipeline, double seconds, const fs::path& root,
                        const std::string& images_href) {
    std::vector<const ActionResult*> acts;
    for (const auto& a : s.actions) acts.push_back(&a);
    std::stable_sort(acts.begin(), acts.end(), [](auto* a, auto* b) { return rank(a->status) < rank(b->status); });
    Page pg;
    for (const ActionResult* a : acts) add_action(pg, *a, root, images_href);
    char secs[32], ratio[32];
    snprintf(secs, sizeof secs, "%.2f s", seconds);
    snprintf(ratio, sizeof ratio, "%.2f", pg.in_total ? double(pg.out_total) / double(pg.in_total) : 0.0);
    auto cell = [](const std::string& k, const std::string& v) {
        return "<tr><td>" + k + "</td><td>" + v + "</td></tr>";
    };
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>assetforge build: " +
        markup_text(pipeline) + "</title><style>" + kStyle +
        "</style></head><body>\n<h1>assetforge build: " + markup_text(pipeline) + "</h1>\n<table class=\"sum\">" +
        cell("failed", std::to_string(s.failed)) + cell("built", std::to_string(s.built)) +
        cell("from cache", std::to_string(s.cached)) + cell("up to date", std::to_string(s.up_to_date)) +
        cell("removed", std::to_string(s.removed)) + cell("not run", std::to_string(s.not_run)) + cell("time", secs) +
        cell("bytes in → out (built and fetched)",
             bytes_text(pg.in_total) + " → " + bytes_text(pg.out_total) + " (ratio " + ratio + ")") +
        (s.cancelled ? cell("cancelled", "yes") : "") +
        (pg.warnings ? cell("warnings", std::to_string(pg.warnings) + " (information discarded: see the error column)")
                     : "") +
        (pg.pictured
             ? cell("pictures", std::to_string(pg.pictured) + " texture actions: source and result, mip 0 (click a "
                                                              "thumbnail for full size and the difference)")
             : "") +
        "</table>\n<h2>Actions</h2>\n<input placeholder=\"filter: job, file, status, format…\" "
        "oninput=\"filt(this.value)\">\n<table id=\"acts\"><thead><tr>";
    int col = 0;
    for (const char* h :
         {"job", "input", "status", "error", "why it ran", "format (why)", "source, result (mip 0)", "PSNR RGB (dB)",
          "PSNR per channel (dB)", "max error (of 255)", "input size", "output size", "ms", "outputs"})
        html += "<th onclick=\"srt(" + std::to_string(col++) + ")\">" + h + "</th>";
    html += "</tr></thead><tbody>\n" + pg.rows + "</tbody></table>\n";
    if (!pg.sections.empty()) html += "<h2>Pictures</h2>\n" + pg.sections;
    html += "<script>" + std::string(kScript) + "</script>\n</body></html>\n";
    return html;
}

} // namespace af::engine
