// The HTML report's pictures (`--report build.html`): for each texture action
// that ran, mip 0 of its source and of its result as thumbnails and at full
// size (or capped: --report-pictures), written into `build.html.d/` beside
// the report as the action finishes, with per-channel PSNR and max error from
// the same decode, and the difference a player sees (texture/image_diff.hpp:
// colour weighted by alpha, alpha on its own). An up-to-date action shows
// the pictures an earlier build made of the same key. Only a build that asks
// for an HTML report makes any of it: without one, nothing is decoded a
// second time and no texture is kept.
#pragma once

#include "assetforge/picture.hpp"
#include "assetforge/texture.hpp"
#include "base/build_result.hpp"
#include "base/report_figures.hpp"
#include "report/figures_record.hpp"
#include "report/picture_writer.hpp"

#include <algorithm>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>

namespace af::report {

// Largest side of a thumbnail, in texels (the page shows them at this size).
inline constexpr uint32_t kThumbnailSide = 96;

// Mip 0 of a texture as a picture (RGBA8, or RGBA32F with signed data mapped to 0..1).
using TopImage = std::function<Texture(const Texture&)>;

// Textures that fit a thumbnail are their own: the page shows the full-size
// pictures there, and two files per action fewer are made (the quickstart's
// textures are 32 to 64 px: that is half the cost of its report).
inline bool has_thumbnails(const base::ReportFigures& f) {
    return std::max({f.picture_width, f.picture_height, f.result_picture_width, f.result_picture_height}) >
           kThumbnailSide;
}

class ReportImages {
  public:
    // The folder is `<report>.d`; it belongs to the report, not to any job:
    // the build never records, cleans or reads from it. Throws when it is
    // a link out of `project` (or not a folder): nothing is written then.
    // `max_side`: the full-size pictures' longest side at most (0: mip 0 as it is; kThumbnailSide: thumbnails only).
    ReportImages(const std::filesystem::path& report_file, const std::filesystem::path& project, uint32_t max_side = 0);

    // Creates the folder (once the plan has accepted the build) and reads what an earlier build kept there;
    // before it, add() and earlier() must not be called.
    void open();

    const std::filesystem::path& dir() const { return dir_; }

    // Safe on worker threads (each action its own files, written by the
    // PictureWriter). Never throws: a picture that could not be made is a
    // note in the figures.
    // `input_file`: the action's input file ("" for a gather); a PNG there
    // is copied as the full-size source rather than encoded again.
    base::ReportFigures add(const std::string& job, const std::string& input, const std::filesystem::path& input_file,
                            const Texture& source, const Texture& result, const TopImage& top_image) const;

    // An up-to-date action's pictures, made by an earlier build of the same
    // key and cap and unchanged since; null when there are none. Thread-safe.
    std::shared_ptr<const base::ReportFigures> earlier(const std::string& job, const std::string& input,
                                                       const std::string& key) const;

    // Waits until every picture is in place (before the page is written);
    // returns what could not be written, one line each.
    std::vector<std::string> finish() const;

    // After the report is written: pictures an earlier build wrote (listed in
    // the folder's manifest, and unchanged since) that the report does not
    // show are removed; any other file is left. The figures of those shown
    // are kept for the next build (with each action's key).
    void sweep(const std::vector<base::ActionResult>& actions) const;

  private:
    void check_folder() const;

    std::filesystem::path project_, dir_, real_; // real_: resolved, once open()
    uint32_t max_side_ = 0;
    std::unique_ptr<PictureWriter> writer_;
    std::map<std::string, KeptFigures> kept_; // what the earlier build left, read by open()
};

// The id of an action's pictures: file names in the folder.
std::string picture_id(const std::string& job, const std::string& input);

// The folder as the report links it: its name, percent-encoded, and a slash.
std::string report_images_href(const std::filesystem::path& report_file);

} // namespace af::report
