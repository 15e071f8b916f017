// What an action's steps report, as data: the encode's choice of format and
// its quality, the normal-map verdict, the information a step discarded
// (warnings) and what plugins logged. Steps fill it while the action runs, a
// later step of the same action reads it (encode takes the verdict `mips`
// reached), and the status printer and reports read it from the action's
// result. Only report/ turns it into JSON (the "metrics" of a JSON report).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace af::base {

struct StepResults {
    // What a step discarded (alpha, a channel, bit depth) and plugins' warnings: printed with the action, kept
    // with its record and cache entry, and what --warnings-as-errors counts.
    std::vector<std::string> warnings;
    // Where `warnings` come from when the action did not run here: "an earlier build" or "the remote cache".
    std::string warnings_from;
    std::vector<std::string> plugin_log; // plugin log lines below warning level, each naming file and plugin

    std::string format, format_reason; // the encoded texture's format and why it was chosen
    std::string note;                  // what a viewer of a decoded texture should know (BC4's red preview…)
    // Whether the texture was taken for a tangent-space normal map, and the rule that decided.
    std::optional<bool> normal_map;
    std::string normal_map_rule;
    std::optional<double> psnr_rgb, psnr_rgb_alpha_weighted; // of the encoded top level, when measured

    std::optional<uint64_t> zip_entries, zip_bytes, zip_unchanged_left_out;
    std::optional<uint64_t> zip_reused; // members copied from the archive the build replaced, not compressed again
    uint64_t kept_existing_outputs = 0; // outputs edited by hand and kept (not --overwrite-edited)

    void set_normal_map(bool yes, std::string rule) {
        normal_map = yes;
        normal_map_rule = std::move(rule);
    }
    // "yes: file name token 'norm'": how reports and `--explain` state the verdict.
    std::string normal_map_text() const {
        return normal_map ? (*normal_map ? "yes: " : "no: ") + normal_map_rule : std::string();
    }
    // Each warning as shown to the user: "alpha dropped … (from an earlier build)" when they were kept.
    std::vector<std::string> warning_lines() const {
        if (warnings_from.empty()) return warnings;
        std::vector<std::string> out = warnings;
        for (auto& w : out) w += " (from " + warnings_from + ")";
        return out;
    }
    // Gives an action that did not run the warnings its outputs were made with. No warnings: no change.
    void keep_warnings(const std::vector<std::string>& kept, const std::string& from) {
        if (kept.empty()) return;
        warnings = kept;
        warnings_from = from;
    }
    bool empty() const {
        return warnings.empty() && warnings_from.empty() && plugin_log.empty() && format.empty() &&
               format_reason.empty() && note.empty() && !normal_map && !psnr_rgb && !psnr_rgb_alpha_weighted &&
               !zip_entries && !zip_bytes && !zip_unchanged_left_out && !zip_reused && !kept_existing_outputs;
    }
};

} // namespace af::base
