#include "report/report_images.hpp"

#include "assetforge/atomic_file.hpp"
#include "assetforge/format_channels.hpp"
#include "assetforge/formats.hpp"
#include "base/output_template.hpp"
#include "core/content_hash.hpp"
#include "core/image_ops.hpp"
#include "core/png_io.hpp"
#include "texture/image_diff.hpp"
#include "texture/preview.hpp"
#include "texture/texture_ops.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <map>
#include <regex>
#include <sstream>
#include <stdexcept>
#include <sys/stat.h>
#include <unistd.h>

namespace af::report {
namespace fs = std::filesystem;

namespace {

// The file's bytes when it is a regular file (not a link) holding a PNG; else empty.
std::vector<uint8_t> png_file(const fs::path& p) {
    std::vector<uint8_t> out;
    const int fd = ::open(p.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) return out;
    struct stat st;
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size >= 8) {
        out.resize(size_t(st.st_size));
        size_t got = 0;
        for (ssize_t n; got < out.size() && (n = ::read(fd, out.data() + got, out.size() - got)) > 0;) got += size_t(n);
        if (got != out.size() || !is_png(out)) out.clear();
    }
    ::close(fd);
    return out;
}

// `<report>.d/.af-pictures`: the pictures a build wrote and how each looked
// then (name, inode, size, mtime). A sweep removes only files listed there
// that still look so: anything else in the folder is not provably ours.
constexpr const char* kManifest = ".af-pictures";
// `<report>.d/.af-figures.json`: the figures of the pictures the manifest lists (figures_record.hpp).
constexpr const char* kFigures = ".af-figures.json";

// A small file of ours in the folder, not followed through a link; "" when missing.
std::string read_small(const fs::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return "";
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < (64u << 20);) text.append(buf, size_t(n));
    ::close(fd);
    return text;
}

PictureWriter::Written stat_of(const fs::path& file) {
    struct stat st;
    if (::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return {};
    return {uint64_t(st.st_ino), uint64_t(st.st_size), int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

// The picture files an action's figures name.
std::vector<std::string> picture_files(const base::ReportFigures& f) {
    std::vector<std::string> out;
    if (!f.picture_width) return out;
    for (const char* kind : {".src", ".res"}) {
        out.push_back(f.id + kind + ".png");
        if (has_thumbnails(f)) out.push_back(f.id + kind + ".t.png");
    }
    if (f.difference) out.push_back(f.id + ".diff.png");
    if (f.alpha_picture) out.push_back(f.id + ".alpha.png");
    return out;
}

// Channels the result keeps, as the player sees them: a format's stored
// ones (format_channels.hpp), blue too when the shader rebuilds it as Z.
uint8_t kept_channels(const Texture& result, bool z_rebuilt) {
    const FormatInfo* f = format_info(result.desc.format);
    if (!f) return chan::rgba;
    uint8_t m = uint8_t(stored_colour(*f) | (stored_channels(*f) & chan::a));
    if (z_rebuilt) m |= chan::b;
    return m;
}

std::map<std::string, PictureWriter::Written> read_manifest(const fs::path& dir) {
    std::map<std::string, PictureWriter::Written> m;
    std::istringstream in(read_small(dir / kManifest));
    std::string name;
    PictureWriter::Written w;
    while (in >> name >> w.ino >> w.size >> w.mtime_ns) m[name] = w;
    return m;
}

} // namespace

ReportImages::ReportImages(const fs::path& report_file, const fs::path& project, uint32_t max_side)
    : project_(project), max_side_(max_side) {
    fs::path abs = fs::absolute(report_file).lexically_normal();
    dir_ = abs.parent_path() / (abs.filename().string() + ".d");
    check_folder();
}

void ReportImages::check_folder() const {
    struct stat st;
    if (::lstat(dir_.c_str(), &st) != 0) return; // made by open()
    if (S_ISLNK(st.st_mode)) {
        // A folder the tool did not make: written into only when the user
        // pointed it inside the project; a link shipped to leave it is refused.
        std::error_code ec;
        const fs::path real = fs::canonical(dir_, ec), root = fs::canonical(project_, ec);
        if (real.empty() || root.empty() || !base::path_within(real, root) || !fs::is_directory(real, ec))
            throw std::runtime_error(dir_.string() + " is a symbolic link to '" + real.string() +
                                     "', outside the project; no pictures written (remove the link)");
        return;
    }
    if (!S_ISDIR(st.st_mode))
        throw std::runtime_error(dir_.string() + " exists and is not a folder; no pictures written");
}

void ReportImages::open() {
    if (writer_) return;
    std::error_code ec;
    fs::create_directories(dir_.parent_path(), ec);
    if (::mkdir(dir_.c_str(), 0755) != 0 && errno != EEXIST)
        throw std::runtime_error(dir_.string() + ": cannot create folder: " + std::strerror(errno));
    check_folder(); // again: the folder may have changed since the build began
    real_ = fs::canonical(dir_, ec);
    if (ec) throw std::runtime_error(dir_.string() + ": " + ec.message());
    writer_ = std::make_unique<PictureWriter>(real_);
    // Only figures whose every picture is one the manifest lists, unchanged since: nothing planted is shown.
    const auto manifest = read_manifest(real_);
    for (auto& [id, k] : parse_kept_figures(read_small(real_ / kFigures))) {
        if (k.figures.id != id) continue;
        const auto files = picture_files(k.figures);
        const bool intact = !files.empty() && std::all_of(files.begin(), files.end(), [&](const std::string& name) {
            auto it = manifest.find(name);
            return it != manifest.end() && stat_of(real_ / name) == it->second;
        });
        if (intact) kept_.emplace(id, std::move(k));
    }
}

std::shared_ptr<const base::ReportFigures> ReportImages::earlier(const std::string& job, const std::string& input,
                                                                 const std::string& key) const {
    auto it = kept_.find(picture_id(job, input));
    if (!writer_ || it == kept_.end() || it->second.key != key) return nullptr;
    auto f = std::make_shared<base::ReportFigures>(it->second.figures);
    f->earlier = true;
    return f;
}

base::ReportFigures ReportImages::add(const std::string& job, const std::string& input, const fs::path& input_file,
                                      const Texture& source, const Texture& result, const TopImage& top_image) const {
    base::ReportFigures f;
    f.id = picture_id(job, input);
    if (!writer_) return f;
    try {
        Texture src = top_image(source), res = top_image(result);
        f.width = src.desc.width, f.height = src.desc.height, f.result_width = res.desc.width,
        f.result_height = res.desc.height;
        // A normal map is shown as the colour of its vectors; a side that
        // keeps X and Y only has blue rebuilt as Z (what the shader does)
        // before it is shown and compared, by the rule `compare` follows.
        const texture::NormalZ z = texture::normal_z(source, result);
        f.normal_map = z.normal_map;
        if (z.rebuild_result) res = texture::with_normal_z(res);
        if (z.rebuild_reference) src = texture::with_normal_z(src);
        // A resized result is compared with the source scaled to its size.
        Texture scaled;
        const Texture* ref = &src;
        if (src.desc.width != res.desc.width || src.desc.height != res.desc.height) {
            scaled = resize(src, res.desc.width, res.desc.height);
            ref = &scaled;
            f.note = "compared with the source scaled to " + std::to_string(res.desc.width) + "×" +
                     std::to_string(res.desc.height);
        }
        // Blue rebuilt as Z is kept only for a texture marked a normal map; else the format dropped it (and said so).
        const bool marked = (source.desc.flags | result.desc.flags) & AF_TEX_NORMAL_MAP;
        f.kept = kept_channels(result, z.rebuild_result && marked);
        if (const FormatInfo* rf = format_info(result.desc.format)) f.result_format = std::string(rf->name);
        const texture::ImageDiff d = texture::diff_images(ref->surface(0, 0, 0), res.surface(0, 0, 0), {.ssim = false});
        f.compared = true;
        for (int c = 0; c < 4; ++c) f.psnr[c] = d.channel[c].psnr, f.max_error[c] = d.channel[c].max_error;
        f.psnr_rgb = d.psnr_rgb;
        f.heat_scale = std::max(1.0 / 255, *std::max_element(f.max_error.begin(), f.max_error.end()));
        texture::DifferencePictures dp =
            texture::difference_pictures(ref->surface(0, 0, 0), res.surface(0, 0, 0), f.kept & chan::rgb);
        f.difference = true;
        f.colour_scale = dp.colour_max, f.alpha_scale = dp.alpha_max;
        // Alpha is a picture of its own where there is any: in the source, in the result, or in their difference.
        f.alpha_picture = d.has_alpha || dp.alpha_max > 0;
        // Pictures larger than --report-pictures' cap are scaled down to it; the figures are of mip 0 as it is.
        const bool capped_src = max_side_ && std::max(src.desc.width, src.desc.height) > max_side_;
        const bool capped_res = max_side_ && std::max(res.desc.width, res.desc.height) > max_side_;
        auto small = [&](const Texture& img, bool capped) {
            return capped ? texture::thumbnail(img, max_side_) : Texture();
        };
        const Texture src_small = small(src, capped_src), res_small = small(res, capped_res);
        const Texture& src_pic = capped_src ? src_small : src;
        const Texture& res_pic = capped_res ? res_small : res;
        f.picture_width = src_pic.desc.width, f.picture_height = src_pic.desc.height;
        f.result_picture_width = res_pic.desc.width, f.result_picture_height = res_pic.desc.height;
        auto put = [&](const std::string& suffix, std::vector<uint8_t> bytes) {
            f.bytes += bytes.size();
            writer_->write(dir_ / (f.id + suffix), std::move(bytes));
        };
        if (has_thumbnails(f)) {
            put(".src.t.png", texture::preview_png(texture::thumbnail(src_pic, kThumbnailSide)));
            put(".res.t.png", texture::preview_png(texture::thumbnail(res_pic, kThumbnailSide)));
        }
        // A PNG source is its own full-size picture: a copy costs no deflate.
        // Read here, not followed through a link (it may have been swapped for one).
        std::vector<uint8_t> png;
        if (!input_file.empty() && !z.rebuild_reference && !capped_src) png = png_file(input_file);
        put(".src.png", png.empty() ? texture::preview_png(src_pic) : std::move(png));
        put(".res.png", texture::preview_png(res_pic));
        put(".diff.png", texture::preview_png(capped_res ? small(dp.colour, true) : dp.colour));
        if (f.alpha_picture) put(".alpha.png", texture::preview_png(capped_res ? small(dp.alpha, true) : dp.alpha));
        if (z.rebuild_result)
            f.note += std::string(f.note.empty() ? "" : "; ") + "blue rebuilt as Z from the stored X and Y";
    } catch (const std::exception& e) {
        const std::string id = f.id;
        f = base::ReportFigures{};
        f.id = id;
        f.note = std::string("no pictures: ") + e.what();
    }
    return f;
}

std::vector<std::string> ReportImages::finish() const {
    return writer_ ? writer_->finish() : std::vector<std::string>{};
}

void ReportImages::sweep(const std::vector<base::ActionResult>& actions) const {
    if (!writer_) return;
    // The files the page shows: an action that ran again may make fewer (no alpha picture now), and an
    // earlier one of the same id goes.
    std::set<std::string> shown;
    std::map<std::string, KeptFigures> figures;
    for (const auto& a : actions)
        if (a.images && a.images->picture_width) {
            for (auto& name : picture_files(*a.images)) shown.insert(std::move(name));
            KeptFigures k{a.key, *a.images};
            k.figures.earlier = false;
            figures[a.images->id] = std::move(k);
        }
    static const std::regex ours(R"(([0-9a-f]{16})\.(src|res|diff|alpha|src\.t|res\.t)\.png)");
    auto keep = writer_->written();
    for (const auto& [name, was] : read_manifest(real_)) {
        if (keep.count(name)) continue;
        std::smatch m;
        const fs::path file = real_ / name;
        struct stat st;
        if (!std::regex_match(name, m, ours) || ::lstat(file.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;
        const PictureWriter::Written now{uint64_t(st.st_ino), uint64_t(st.st_size),
                                         int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
        if (!(now == was)) continue; // replaced since: not ours any more
        if (shown.count(name))
            keep[name] = was; // still shown (its action did not run again)
        else
            ::unlink(file.c_str());
    }
    std::string text;
    for (const auto& [name, w] : keep)
        text +=
            name + ' ' + std::to_string(w.ino) + ' ' + std::to_string(w.size) + ' ' + std::to_string(w.mtime_ns) + '\n';
    try {
        sdk::AtomicFile f(real_ / kManifest, {.durable = false, .within = real_, .create_folders = false});
        f.write(text.data(), text.size());
        f.commit();
    } catch (const std::exception&) {
        // Without a list the next sweep removes nothing: the safe side.
    }
    try {
        const std::string kept = kept_figures_text(figures);
        sdk::AtomicFile f(real_ / kFigures, {.durable = false, .within = real_, .create_folders = false});
        f.write(kept.data(), kept.size());
        f.commit();
    } catch (const std::exception&) {
        // Without it the next build makes the pictures of up-to-date actions again only when they run.
    }
}

std::string picture_id(const std::string& job, const std::string& input) {
    return hash_string(job + '\0' + input).hex().substr(0, 16);
}

std::string report_images_href(const fs::path& report_file) {
    const std::string name = report_file.filename().string() + ".d";
    std::string out;
    for (unsigned char c : name) {
        if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
            out += char(c);
        } else {
            char b[4];
            snprintf(b, sizeof b, "%%%02X", c);
            out += b;
        }
    }
    return out + "/";
}

} // namespace af::report
