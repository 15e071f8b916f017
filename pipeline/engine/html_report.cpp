#include "engine/html_report.hpp"

#include "engine/markup_text.hpp"

#include <algorithm>
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
td.n{text-align:right;font-variant-numeric:tabular-nums}.failed{background:#fde8e8}.failed td.st{color:#b00;
font-weight:bold}.cached td.st{color:#06c}.built td.st{color:#070}.err{font-family:monospace;white-space:pre-wrap;
color:#900}.sum td{border:0;padding:2px 12px 2px 0}input{margin:0 0 8px 0;padding:4px;width:24em})";

// Sorting by a header click, filtering by the text box: the page reads the same without them.
const char* kScript = R"(function filt(v){v=v.toLowerCase();for(const r of document.querySelectorAll('#acts tbody tr'))
r.style.display=r.textContent.toLowerCase().includes(v)?'':'none'}
function srt(i){const b=document.querySelector('#acts tbody'),rs=[...b.rows],d=b.dataset.d=='a'?'d':'a';b.dataset.d=d;
rs.sort((x,y)=>{const p=x.cells[i].dataset.v??x.cells[i].textContent,q=y.cells[i].dataset.v??y.cells[i].textContent;
const m=parseFloat(p),n=parseFloat(q),c=!isNaN(m)&&!isNaN(n)?m-n:p.localeCompare(q);return d=='a'?c:-c});
for(const r of rs)b.appendChild(r)})";

} // namespace

std::string html_report(const BuildSummary& s, const std::string& pipeline, double seconds, const fs::path& root) {
    std::vector<const ActionResult*> acts;
    for (const auto& a : s.actions) acts.push_back(&a);
    std::stable_sort(acts.begin(), acts.end(), [](auto* a, auto* b) { return rank(a->status) < rank(b->status); });
    uint64_t in_total = 0, out_total = 0;
    std::string rows;
    for (const ActionResult* a : acts) {
        uint64_t in = 0, out = 0;
        for (const auto& f : a->inputs) in += size_of(root, f);
        for (const auto& f : a->outputs) out += size_of(root, f);
        if (a->status == ActionStatus::Built || a->status == ActionStatus::Cached) in_total += in, out_total += out;
        std::string format, why, psnr;
        if (a->metrics.is_object()) {
            if (a->metrics.contains("format")) format = a->metrics["format"].get<std::string>();
            if (a->metrics.contains("format_reason")) why = a->metrics["format_reason"].get<std::string>();
            if (a->metrics.contains("psnr_rgb") && a->metrics["psnr_rgb"].is_number()) {
                char b[32];
                snprintf(b, sizeof b, "%.2f", a->metrics["psnr_rgb"].get<double>());
                psnr = b;
            }
        }
        std::string outs;
        for (const auto& o : a->outputs) outs += (outs.empty() ? "" : "<br>") + markup_text(o);
        char dur[32];
        snprintf(dur, sizeof dur, "%.1f", a->duration_ms);
        const std::string st(to_string(a->status));
        rows += "<tr class=\"" + st + "\"><td>" + markup_text(a->job) + "</td><td>" + markup_text(a->input) +
                "</td><td>" + outs + "</td><td class=\"st\">" + st + "</td><td>" + markup_text(a->reason) +
                "</td><td>" + markup_text(format) + (why.empty() ? "" : " <small>(" + markup_text(why) + ")</small>") +
                "</td><td class=\"n\" data-v=\"" + std::to_string(in) + "\">" + bytes_text(in) +
                "</td><td class=\"n\" data-v=\"" + std::to_string(out) + "\">" + bytes_text(out) +
                "</td><td class=\"n\">" + psnr + "</td><td class=\"n\">" + dur + "</td><td class=\"err\">" +
                (a->error.empty() ? "" : markup_text("step '" + a->failed_step + "': " + a->error)) + "</td></tr>\n";
    }
    char secs[32], ratio[32];
    snprintf(secs, sizeof secs, "%.2f s", seconds);
    snprintf(ratio, sizeof ratio, "%.2f", in_total ? double(out_total) / double(in_total) : 0.0);
    auto cell = [](const std::string& k, const std::string& v) {
        return "<tr><td>" + k + "</td><td>" + v + "</td></tr>";
    };
    std::string html = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>assetforge build: " +
                       markup_text(pipeline) + "</title><style>" + kStyle +
                       "</style></head><body>\n<h1>assetforge build: " + markup_text(pipeline) +
                       "</h1>\n<table class=\"sum\">" + cell("failed", std::to_string(s.failed)) +
                       cell("built", std::to_string(s.built)) + cell("from cache", std::to_string(s.cached)) +
                       cell("up to date", std::to_string(s.up_to_date)) + cell("removed", std::to_string(s.removed)) +
                       cell("not run", std::to_string(s.not_run)) + cell("time", secs) +
                       cell("bytes in → out (built and fetched)",
                            bytes_text(in_total) + " → " + bytes_text(out_total) + " (ratio " + ratio + ")") +
                       (s.cancelled ? cell("cancelled", "yes") : "") +
                       "</table>\n<h2>Actions</h2>\n<input placeholder=\"filter: job, file, status, format…\" "
                       "oninput=\"filt(this.value)\">\n<table id=\"acts\"><thead><tr>";
    int col = 0;
    for (const char* h : {"job", "input", "outputs", "status", "why it ran", "format (why)", "input size",
                          "output size", "PSNR RGB (dB)", "ms", "error"})
        html += "<th onclick=\"srt(" + std::to_string(col++) + ")\">" + h + "</th>";
    html += "</tr></thead><tbody>\n" + rows + "</tbody></table>\n<script>" + kScript + "</script>\n</body></html>\n";
    return html;
}

} // namespace af::engine
