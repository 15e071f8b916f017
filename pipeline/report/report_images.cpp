#include "report/report_images.hpp"

#include "assetforge/atomic_file.hpp"
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

namespace af::engine {
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

std::map<std::string, PictureWriter::Written> read_manifest(const fs::path& dir) {
    std::map<std::string, PictureWriter::Written> m;
    const int fd = ::open((dir / kManifest).c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return m;
    std::string text;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0 && text.size() < (64u << 20);) text.append(buf, size_t(n));
    ::close(fd);
    std::istringstream in(text);
    std::string name;
    PictureWriter::Written w;
    while (in >> name >> w.ino >> w.size >> w.mtime_ns) m[name] = w;
    return m;
}

} // namespace

ReportImages::ReportImages(const fs::path& report_file, const fs::path& project) : project_(project) {
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
        if (real.empty() || root.empty() || !path_within(real, root) || !fs::is_directory(real, ec))
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
}

ReportFigures ReportImages::add(const std::string& job, const std::string& input, const fs::path& input_file,
                                const Texture& source, const Texture& result, const TopImage& top_image) const {
    ReportFigures f;
    f.id = hash_string(job + '\0' + input).hex().substr(0, 16);
    if (!writer_) return f;
    try {
        Image src = top_image(source), res = top_image(result);
        f.width = src.width, f.height = src.height, f.result_width = res.width, f.result_height = res.height;
        // A normal map is shown as the colour of its vectors; a side that
        // keeps X and Y only has blue rebuilt as Z (what the shader does)
        // before it is shown and compared, by the rule `compare` follows.
        const texture::NormalZ z = texture::normal_z(source, result);
        f.normal_map = z.normal_map;
        if (z.rebuild_result) res = texture::with_normal_z(res);
        if (z.rebuild_reference) src = texture::with_normal_z(src);
        if (has_thumbnails(f)) {
            writer_->write(dir_ / (f.id + ".src.t.png"), texture::preview_png(texture::thumbnail(src, kThumbnailSide)));
            writer_->write(dir_ / (f.id + ".res.t.png"), texture::preview_png(texture::thumbnail(res, kThumbnailSide)));
        }
        // A PNG source is its own full-size picture: a copy costs no deflate.
        // Read here, not followed through a link (it may have been swapped for one).
        std::vector<uint8_t> png;
        if (!input_file.empty() && !z.rebuild_reference) png = png_file(input_file);
        writer_->write(dir_ / (f.id + ".src.png"), png.empty() ? texture::preview_png(src) : std::move(png));
        writer_->write(dir_ / (f.id + ".res.png"), texture::preview_png(res));
        // A resized result is compared with the source scaled to its size.
        Image scaled;
        const Image* ref = &src;
        if (src.width != res.width || src.height != res.height) {
            scaled = resize(src, res.width, res.height);
            ref = &scaled;
            f.note =
                "compared with the source scaled to " + std::to_string(res.width) + "×" + std::to_string(res.height);
        }
        const texture::ImageDiff d = texture::diff_images(*ref, res, {.ssim = false});
        f.compared = true;
        for (int c = 0; c < 4; ++c) f.psnr[c] = d.channel[c].psnr, f.max_error[c] = d.channel[c].max_error;
        f.psnr_rgb = d.psnr_rgb;
        f.heat_scale = std::max(1.0 / 255, *std::max_element(f.max_error.begin(), f.max_error.end()));
        if (z.rebuild_result)
            f.note += std::string(f.note.empty() ? "" : "; ") + "blue rebuilt as Z from the stored X and Y";
    } catch (const std::exception& e) {
        f.note = std::string("no pictures: ") + e.what();
    }
    return f;
}

std::vector<std::string> ReportImages::finish() const {
    return writer_ ? writer_->finish() : std::vector<std::string>{};
}

void ReportImages::sweep(const std::set<std::string>& shown) const {
    if (!writer_) return;
    static const std::regex ours(R"(([0-9a-f]{16})\.(src|res|diff|src\.t|res\.t)\.png)");
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
        if (shown.count(m[1].str()))
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

} // namespace af::engine
