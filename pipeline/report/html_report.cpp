#include "report/html_report.hpp"

#include "assetforge/format_channels.hpp"
#include "base/markup_text.hpp"
#include "report/report_images.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <string_view>
#include <system_error>
#include <vector>

namespace af::report {
namespace fs = std::filesystem;
using base::ActionStatus;
using base::markup_text;

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

// Fits a laptop (1366 px): paths wrap at their slashes and messages anywhere
// rather than widen the table; the pictures' section shows a large picture at
// the page's width, never wider.
const char* kStyle = R"(body{font:14px system-ui,sans-serif;margin:1em;color:#222}
h1{font-size:1.3em;overflow-wrap:anywhere}table{border-collapse:collapse;width:100%}th,td{border-bottom:1px solid #ddd;
padding:4px 5px;text-align:left;vertical-align:top;overflow-wrap:break-word}
td.err,td.why,td.outs,td.fmt,td.in{overflow-wrap:anywhere}td.err{min-width:10em}td.why{min-width:5em}
td.fmt,td.in{min-width:8em}
th{background:#f4f4f4;cursor:pointer;position:sticky;top:0;overflow-wrap:normal}
td.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap;overflow-wrap:normal}.failed{background:#fde8e8}
.failed td.st{color:#b00;font-weight:bold}.cached td.st{color:#06c}.built td.st{color:#070}.err{font-family:monospace;
white-space:pre-wrap;color:#900}.warn{color:#a60}.sum td{border:0;padding:2px 12px 2px 0}
input{margin:0 0 8px 0;padding:4px;width:24em;max-width:90%}
.pic{white-space:nowrap;overflow-wrap:normal}.pic img{margin-right:4px;vertical-align:top}
.pic img,.fig img{background:repeating-conic-gradient(#ccc 0 25%,#fff 0 50%) 0 0/16px 16px;image-rendering:pixelated}
.fig{display:flex;flex-wrap:wrap;gap:12px}.fig figure{margin:0;min-width:0;max-width:100%}
.fig figure.wide{flex:1 1 100%}.fig img{max-width:100%;height:auto}
section.v{border-top:1px solid #ddd;padding:6px 0}section.v h3{font-size:1em;margin:6px 0;overflow-wrap:anywhere})";

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

// A path (or a message naming paths) as markup that may break after each slash: a long path wraps at its folders,
// not mid-name, and never widens the table past the window.
std::string path_markup(const std::string& path) {
    std::string out;
    for (const char ch : markup_text(path)) out += ch == '/' ? std::string("/<wbr>") : std::string(1, ch);
    return out;
}

// A path as the page shows it: relative to the pipeline's folder, never
// absolute (a report is shared; the build machine's folders are nobody's business).
std::string shown_path(const std::string& path, const fs::path& root) {
    const fs::path p(path);
    if (!p.is_absolute()) return path;
    const fs::path rel = p.lexically_relative(root);
    return rel.empty() ? p.filename().string() : rel.string();
}

// Any other absolute path in `text` (an original a match copied, outside the project: "matches
// /home/u/game/x.dds"), made relative to the pipeline's folder. A path starts with '/' at the start of the
// text or after a space, bracket, quote or '='; it ends at white space, a closing bracket or quote, or ": ".
// A name with a space is cut there, which still leaves its folders relative.
std::string relative_paths(const std::string& text, const fs::path& root) {
    std::string out;
    for (size_t i = 0; i < text.size();) {
        const bool starts =
            text[i] == '/' && (i == 0 || std::string_view(" \t([{'\"=").find(text[i - 1]) != std::string_view::npos);
        if (!starts) {
            out += text[i++];
            continue;
        }
        size_t end = i;
        while (end < text.size() && std::string_view(" \t\n)]}'\",;").find(text[end]) == std::string_view::npos &&
               !(text[end] == ':' && (end + 1 == text.size() || text[end + 1] == ' ')))
            ++end;
        // A lone '/' ("R / G") is no path.
        out += end - i > 1 ? shown_path(text.substr(i, end - i), root) : text.substr(i, end - i);
        i = end;
    }
    return out;
}

// A message with the action's absolute paths (and the pipeline's folder) made relative.
std::string shown_text(std::string text, const base::ActionResult& a, const fs::path& root) {
    auto replace_all = [&](const std::string& from, const std::string& to) {
        if (from.empty()) return;
        for (size_t at = 0; (at = text.find(from, at)) != std::string::npos; at += to.size())
            text.replace(at, from.size(), to);
    };
    for (const auto* names : {&a.inputs, &a.outputs})
        for (const auto& n : *names)
            if (fs::path(n).is_absolute()) replace_all(n, shown_path(n, root));
    replace_all(root.string() + "/", "");
    return relative_paths(text, root);
}

std::string channel_names(uint8_t mask) {
    std::string out;
    for (int c = 0; c < 4; ++c)
        if (mask & (1u << c)) out += std::string(out.empty() ? "" : ", ") + "RGBA"[c];
    return out;
}

// Mip 0 of the source, of the result and the difference a player sees, at full size (or capped).
std::string picture_section(const base::ActionResult& a, const std::string& href, const fs::path& root) {
    const base::ReportFigures& f = *a.images;
    const std::string p = href + f.id;
    // Small textures zoomed to 256 px by a whole factor; large ones at the page's width at most.
    auto img = [&](const std::string& file, const std::string& alt, uint32_t w, uint32_t h) {
        return "<img loading=\"lazy\" src=\"" + p + file + "\" alt=\"" + alt + "\"" +
               size_attrs(w, h, std::max({256u, w, h})) + ">";
    };
    auto fig = [&](const std::string& file, const std::string& alt, uint32_t w, uint32_t h, const std::string& cap) {
        // Wider than a third of a laptop's page: a row of its own, at the page's width.
        const char* wide = std::max(w, h) > 400 ? " class=\"wide\"" : "";
        return std::string("<figure") + wide + "><a href=\"" + p + file + "\">" + img(file, alt, w, h) +
               "</a><figcaption>" + cap + "</figcaption></figure>";
    };
    auto dims = [](uint32_t w, uint32_t h) { return std::to_string(w) + "×" + std::to_string(h); };
    auto capped = [&](uint32_t w, uint32_t h, uint32_t pw, uint32_t ph) {
        return dims(w, h) + (pw != w || ph != h ? " (picture " + dims(pw, ph) + ")" : "");
    };
    std::string out = "<section class=\"v\" id=\"v-" + f.id + "\"><h3>" +
                      markup_text(a.job + ": " + shown_path(a.input, root)) + "</h3>";
    if (!f.note.empty()) out += "<p>" + markup_text(shown_text(f.note, a, root)) + "</p>";
    if (f.earlier) out += "<p>up to date: the pictures of the earlier build that made these outputs</p>";
    const uint32_t rw = f.result_picture_width, rh = f.result_picture_height;
    out += "<div class=\"fig\">" +
           fig(".src.png", "source", f.picture_width, f.picture_height,
               "source, mip 0, " + capped(f.width, f.height, f.picture_width, f.picture_height)) +
           fig(".res.png", "result", rw, rh,
               "result, mip 0, " + capped(f.result_width, f.result_height, rw, rh) +
                   (f.result_format.empty() ? "" : ", " + markup_text(f.result_format)) +
                   (f.normal_map ? " (normal map)" : ""));
    if (f.difference) {
        auto times = [](double scale) {
            return scale > 0 ? "×" + std::to_string(std::clamp(std::lround(1 / scale), 1L, 255L)) : std::string("");
        };
        const uint8_t colour = f.kept & 0x7 ? f.kept & 0x7 : 0x7;
        std::string cap = "difference a player sees: |result − source| of " + channel_names(colour) + " " +
                          times(f.colour_scale) + ", weighted by the source's alpha (largest " +
                          levels_text(f.colour_scale) +
                          "/255); texels with alpha 0 are not counted (shown as the checkerboard)";
        if ((colour & 0x7) != 0x7)
            cap += "; not kept by the result" +
                   (f.result_format.empty() ? std::string() : " (" + markup_text(f.result_format) + ")") + ": " +
                   channel_names(uint8_t(~colour & 0x7));
        out += fig(".diff.png", "difference", rw, rh, cap);
        if (f.alpha_picture) {
            std::string acap = "alpha difference |result − source| " + times(f.alpha_scale) + " (largest " +
                               levels_text(f.alpha_scale) + "/255)";
            if (!(f.kept & 0x8)) acap += "; the result keeps no alpha";
            out += fig(".alpha.png", "alpha difference", rw, rh, acap);
        }
    }
    out += "</div>";
    // What the result dropped, in the words of the step's own warnings: an error of 255 is then the format's.
    for (const auto& w : a.results.warning_lines())
        out += "<p class=\"warn\">information dropped: " + markup_text(shown_text(w, a, root)) + "</p>";
    return out + "<p><a href=\"#a-" + f.id + "\">back to the table</a></p></section>\n";
}

// The table's columns, in order: figures and pictures before the long texts, so they are in view on a laptop.
enum Col {
    kJob,
    kInput,
    kStatus,
    kPictures,
    kPsnr,
    kChannels,
    kMaxError,
    kFormat,
    kProblems,
    kWhy,
    kSizes,
    kMs,
    kOutputs,
    kCols
};
const char* const kHeaders[kCols] = {"job",
                                     "input",
                                     "status",
                                     "source, result (mip 0)",
                                     "PSNR RGB (dB)",
                                     "PSNR per channel (dB)",
                                     "max error (of 255)",
                                     "format (why)",
                                     "error, warnings",
                                     "why it ran",
                                     "size in, out",
                                     "ms",
                                     "outputs"};

// One cell: its attributes (class, data-v) and its content; empty content everywhere drops the column.
struct Cell {
    std::string attrs, html;
};

struct Row {
    std::string tr_attrs;
    std::array<Cell, kCols> cells;
};

// The page's parts that its actions make, summed as each is added.
struct Page {
    std::vector<Row> rows;
    std::string sections;
    size_t pictured = 0, earlier = 0, warnings = 0;
    uint64_t in_total = 0, out_total = 0, picture_bytes = 0;
};

// The normal-map verdict decided something: a normal map (its chain, its Z rebuilt), or a format that keeps a
// normal's X and Y only chosen for a texture judged not one. A "no" for a diffuse texture in BC1 or BC7 decided
// nothing a reader needs, on every row of a real tree.
bool verdict_mattered(const base::StepResults& r, const std::string& format) {
    if (!r.normal_map) return false;
    if (*r.normal_map) return true;
    const FormatInfo* f = format_by_name(format);
    return f && stores_xy_only(*f);
}

// Output bytes as a share of input bytes: a gather of a whole tree into a small zip is a tiny share, which a
// ratio to two decimals would print as 0.00.
std::string share_text(uint64_t in, uint64_t out) {
    const double pct = 100.0 * double(out) / double(in);
    char b[48];
    if (pct >= 10)
        snprintf(b, sizeof b, "%.0f", pct);
    else if (pct >= 1)
        snprintf(b, sizeof b, "%.1f", pct);
    else if (pct >= 0.001)
        snprintf(b, sizeof b, "%.2g", pct);
    else
        snprintf(b, sizeof b, "under 0.001");
    return std::string("out is ") + b + " % of in";
}

// The format, why it was chosen and, where it decided something, the normal-map verdict.
std::string format_cell(const base::ActionResult& a, const std::string& format, const fs::path& root) {
    const base::StepResults& r = a.results;
    const std::string why = shown_text(r.format_reason, a, root);
    return markup_text(format) + (why.empty() ? "" : " <small>(" + path_markup(why) + ")</small>") +
           (verdict_mattered(r, format) ? "<br><small>normal map: " + markup_text(r.normal_map_text()) + "</small>"
                                        : "");
}

std::string fixed2(double v) {
    char b[32];
    snprintf(b, sizeof b, "%.2f", v);
    return b;
}

// One action's row of the table (and its pictures' section).
void add_action(Page& pg, const base::ActionResult& a, const fs::path& root, const std::string& images_href) {
    uint64_t in = 0, out = 0;
    for (const auto& f : a.inputs) in += size_of(root, f);
    for (const auto& f : a.outputs) out += size_of(root, f);
    if (a.status == ActionStatus::Built || a.status == ActionStatus::Cached) pg.in_total += in, pg.out_total += out;
    const base::StepResults& r = a.results;
    std::string format = r.format;
    std::string psnr = r.psnr_rgb ? fixed2(*r.psnr_rgb) : "";
    const std::string weighted = r.psnr_rgb_alpha_weighted ? fixed2(*r.psnr_rgb_alpha_weighted) : "";
    Row row;
    auto& c = row.cells;
    c[kChannels].attrs = c[kMaxError].attrs = " class=\"n\"";
    if (const base::ReportFigures* f = a.images.get(); f && !images_href.empty()) {
        row.tr_attrs = " id=\"a-" + f->id + "\"";
        if (format.empty()) format = f->result_format; // an up-to-date action: the figures kept its format
        if (f->compared) {
            double worst_db = 1e9, worst_err = 0;
            std::string channels, max_err;
            for (int ch = 0; ch < 4; ++ch) {
                const std::string name = std::string(ch ? "<br>" : "") + "RGBA"[ch] + " ";
                const bool kept = f->kept & (1u << ch);
                channels += name + db_text(f->psnr[ch]);
                max_err += name + levels_text(f->max_error[ch]) +
                           (kept || f->max_error[ch] == 0 ? "" : " <small class=\"warn\">(not kept)</small>");
                if (f->psnr[ch]) worst_db = std::min(worst_db, *f->psnr[ch]);
                worst_err = std::max(worst_err, f->max_error[ch]);
            }
            c[kChannels] = {" class=\"n\" data-v=\"" + std::to_string(worst_db) + "\"", channels};
            c[kMaxError] = {" class=\"n\" data-v=\"" + std::to_string(worst_err) + "\"", max_err};
            // The report's own figure (as `compare` measures it; normal maps
            // with Z rebuilt), and the encode step's when it says otherwise.
            const std::string step = psnr;
            psnr = db_text(f->psnr_rgb);
            if (!step.empty() && step != psnr && !(step == "99.00" && !f->psnr_rgb))
                psnr += "<br><small>(encode step: " + step + ")</small>";
        }
        if (f->picture_width) {
            const std::string p = images_href + f->id, t = has_thumbnails(*f) ? ".t" : "";
            c[kPictures].html = "<a href=\"#v-" + f->id + "\"><img src=\"" + p + ".src" + t + ".png\" alt=\"source\"" +
                                size_attrs(f->picture_width, f->picture_height, kThumbnailSide) + "><img src=\"" + p +
                                ".res" + t + ".png\" alt=\"result\"" +
                                size_attrs(f->result_picture_width, f->result_picture_height, kThumbnailSide) +
                                "></a>" + (f->earlier ? "<br><small>(an earlier build's)</small>" : "");
            pg.sections += picture_section(a, images_href, root);
            ++pg.pictured;
            pg.earlier += f->earlier;
            pg.picture_bytes += f->bytes;
        } else {
            c[kPictures].html = path_markup(shown_text(f->note, a, root));
        }
    }
    // Colour under transparent texels counted by its alpha: the figure of what a player sees.
    if (!weighted.empty()) psnr += "<br><small>alpha-weighted: " + weighted + "</small>";
    c[kPictures].attrs = " class=\"pic\"";
    c[kPsnr] = {" class=\"n\"", psnr};
    std::string outs;
    for (const auto& o : a.outputs) outs += (outs.empty() ? "" : "<br>") + path_markup(shown_path(o, root));
    char dur[32];
    snprintf(dur, sizeof dur, "%.1f", a.duration_ms);
    const std::string st(base::to_string(a.status));
    std::string problems =
        a.error.empty() ? "" : path_markup(shown_text("step '" + a.failed_step + "': " + a.error, a, root));
    for (const auto& w : a.results.warning_lines()) {
        problems += std::string(problems.empty() ? "" : "<br>") +
                    "<span class=\"warn\">warning: " + path_markup(shown_text(w, a, root)) + "</span>";
        ++pg.warnings;
    }
    for (const auto& l : a.results.plugin_log)
        problems += std::string(problems.empty() ? "" : "<br>") + "<span class=\"log\">" +
                    path_markup(shown_text(l, a, root)) + "</span>";
    row.tr_attrs = " class=\"" + st + "\"" + row.tr_attrs;
    c[kJob].html = markup_text(a.job);
    c[kInput] = {" class=\"in\"", path_markup(shown_path(a.input, root))};
    c[kStatus] = {" class=\"st\"", st};
    c[kProblems] = {" class=\"err\"", problems};
    c[kWhy] = {" class=\"why\"", path_markup(shown_text(a.reason, a, root))};
    c[kFormat] = {" class=\"fmt\"", format_cell(a, format, root)};
    c[kSizes] = {" class=\"n\" data-v=\"" + std::to_string(in) + "\"", bytes_text(in) + "<br>" + bytes_text(out)};
    c[kMs] = {" class=\"n\"", dur};
    c[kOutputs] = {" class=\"outs\"", outs};
    pg.rows.push_back(std::move(row));
}

// A row for what this build did or has to say: built, fetched, failed, not run, removed, and an up-to-date
// action only with warnings (kept from the build that made its outputs) or an earlier build's pictures. The
// thousands of unchanged files of a real tree are a count, not rows.
bool listed(const base::ActionResult& a, const std::string& images_href) {
    if (a.status != ActionStatus::UpToDate) return true;
    if (!a.results.warning_lines().empty()) return true;
    return a.images && a.images->picture_width && !images_href.empty();
}

} // namespace

bool is_html_report(const std::string& file) {
    for (const std::string e : {".html", ".htm"})
        if (file.size() > e.size() && file.compare(file.size() - e.size(), e.size(), e) == 0) return true;
    return false;
}

std::string html_report(const base::BuildSummary& s, const std::string& pipeline, double seconds, const fs::path& root,
                        const std::string& images_href) {
    std::vector<const base::ActionResult*> acts;
    for (const auto& a : s.actions) acts.push_back(&a);
    std::stable_sort(acts.begin(), acts.end(), [](auto* a, auto* b) { return rank(a->status) < rank(b->status); });
    Page pg;
    size_t unlisted = 0;
    for (const base::ActionResult* a : acts) {
        if (listed(*a, images_href))
            add_action(pg, *a, root, images_href);
        else
            ++unlisted;
    }
    char secs[32];
    snprintf(secs, sizeof secs, "%.2f s", seconds);
    auto cell = [](const std::string& k, const std::string& v) {
        return "<tr><td>" + k + "</td><td>" + v + "</td></tr>";
    };
    // A column no row has a value in is left out (the error column of a build without errors, the
    // pictures' of a page without them): every column costs width on a laptop.
    std::array<bool, kCols> shown{};
    for (const Row& r : pg.rows)
        for (int i = 0; i < kCols; ++i) shown[i] = shown[i] || !r.cells[i].html.empty();
    shown[kJob] = shown[kInput] = shown[kStatus] = true;
    std::string html =
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
        "content=\"width=device-width\"><title>assetforge build: " +
        markup_text(shown_path(pipeline, root)) + "</title><style>" + kStyle +
        "</style></head><body>\n<h1>assetforge build: " + markup_text(shown_path(pipeline, root)) +
        "</h1>\n<table class=\"sum\">" + cell("failed", std::to_string(s.failed)) +
        cell("built", std::to_string(s.built)) + cell("from cache", std::to_string(s.cached)) +
        cell("up to date", std::to_string(s.up_to_date)) + cell("removed", std::to_string(s.removed)) +
        cell("not run", std::to_string(s.not_run)) + cell("time", secs) +
        (pg.in_total || pg.out_total ? cell("bytes in → out (built and fetched)",
                                            bytes_text(pg.in_total) + " → " + bytes_text(pg.out_total) +
                                                (pg.in_total ? " (" + share_text(pg.in_total, pg.out_total) + ")" : ""))
                                     : "") +
        (s.cancelled ? cell("cancelled", "yes") : "") +
        (pg.warnings ? cell("warnings", std::to_string(pg.warnings) + " (information discarded: see the error column)")
                     : "") +
        (pg.pictured
             ? cell("pictures",
                    std::to_string(pg.pictured) + " texture actions" +
                        (pg.earlier ? " (" + std::to_string(pg.earlier) + " of them up to date: an earlier build's)"
                                    : "") +
                        ": source, result and difference, mip 0 (click a thumbnail for full size); " +
                        "<span id=\"picture-bytes\" data-v=\"" + std::to_string(pg.picture_bytes) + "\">" +
                        bytes_text(pg.picture_bytes) + "</span> on disk in " + markup_text(images_href))
             : "") +
        "</table>\n<h2>Actions</h2>\n" +
        (unlisted ? "<p>" + std::to_string(unlisted) + " up-to-date actions without warnings are not listed.</p>\n"
                  : "") +
        "<input placeholder=\"filter: job, file, status, format…\" "
        "oninput=\"filt(this.value)\">\n<table id=\"acts\"><thead><tr>";
    int col = 0;
    for (int i = 0; i < kCols; ++i)
        if (shown[i]) html += "<th onclick=\"srt(" + std::to_string(col++) + ")\">" + kHeaders[i] + "</th>";
    html += "</tr></thead><tbody>\n";
    for (const Row& r : pg.rows) {
        html += "<tr" + r.tr_attrs + ">";
        for (int i = 0; i < kCols; ++i)
            if (shown[i]) html += "<td" + r.cells[i].attrs + ">" + r.cells[i].html + "</td>";
        html += "</tr>\n";
    }
    html += "</tbody></table>\n";
    if (!pg.sections.empty()) html += "<h2>Pictures</h2>\n" + pg.sections;
    html += "<script>" + std::string(kScript) + "</script>\n</body></html>\n";
    return html;
}

} // namespace af::report
