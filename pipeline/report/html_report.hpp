// `--report build.html`: the build as one self-contained page (no network,
// no external scripts or fonts): a summary, then every action — failures
// first — with its input and outputs, the format chosen and why, sizes before
// and after, PSNR, duration and error. Readable without JavaScript; a few
// lines of inline script sort and filter the table.
#pragma once

#include "base/build_result.hpp"

#include <filesystem>
#include <string>

namespace af::report {

// Sizes are read from the files as they are when the report is written
// (`root`: where relative paths in the summary resolve). `images_href`: the
// pictures' folder as the page links it (report_images.hpp), for actions
// that have figures; "" when there are none.
std::string html_report(const base::BuildSummary& s, const std::string& pipeline, double seconds,
                        const std::filesystem::path& root, const std::string& images_href = "");

// FILE.html or FILE.htm: the report `--report FILE` writes is this page.
bool is_html_report(const std::string& file);

} // namespace af::report
