// The figures of the pictures in `<report>.d/`, kept beside them
// (`.af-figures.json`) so that a later build whose actions are up to date
// shows the pictures an earlier one made instead of deleting them: each with
// the action's key, so a picture of another input or another configuration
// is never shown as this one's.
#pragma once

#include "base/report_figures.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <string>

namespace af::report {

struct KeptFigures {
    // The action's key when its pictures were made. (Not the cap: pictures of another
    // --report-pictures size still show the same texels, and the page gives their size.)
    std::string key;
    base::ReportFigures figures;
};

nlohmann::json figures_json(const base::ReportFigures& f);
// Throws nlohmann::json::exception on a malformed record.
base::ReportFigures figures_from_json(const nlohmann::json& j);

// id → what was kept; an unreadable or malformed file is an empty map (the pictures are made again).
std::map<std::string, KeptFigures> parse_kept_figures(const std::string& text);
std::string kept_figures_text(const std::map<std::string, KeptFigures>& kept);

} // namespace af::report
