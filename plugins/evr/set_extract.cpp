#include "set_extract.hpp"

#include "output_batch.hpp"
#include "parallel_jobs.hpp"
#include "raw_texture.hpp"

#include "assetforge/error.hpp"
#include "assetforge/mapped_file.hpp"
#include "assetforge/plugin.hpp"

#include <algorithm>
#include <exception>
#include <mutex>
#include <unordered_map>

namespace af::evr {

namespace fs = std::filesystem;
using sdk::format;
using ull = unsigned long long;

fs::path extraction_path(const FileEntry& f, const std::string& extension, bool groups) {
    fs::path p = groups ? fs::path(std::to_string(f.frame)) : fs::path();
    return p / hex16(f.type) / (hex16(f.file) + extension);
}

namespace {

// What one file becomes on disk: extension plus an optional header in front of its bytes.
struct Output {
    std::string extension;
    std::vector<uint8_t> header;
    std::string warning;
};

Output output_for(const FileEntry& f, uint64_t j, const std::unordered_map<uint64_t, std::span<const uint8_t>>& metas) {
    if (f.type == kTypeDds) return {".dds", {}, {}};
    if (f.type == kTypeTextureMeta) return {".tmeta", {}, {}};
    if (f.type != kTypeRawBc) return {".bin", {}, {}};
    auto it = metas.find(f.file);
    if (it == metas.end()) return {".bc", {}, {}}; // no metadata: nothing to warn about, nothing to rebuild
    DdsPlan plan = plan_dds(it->second, f.size);
    if (plan.header.empty()) return {".bc", {}, file_label(j, f) + ": " + plan.why_not + "; written as .bc"};
    return {".dds", std::move(plan.header), {}};
}

} // namespace

namespace {

// A link anywhere between --out and a file would send the write elsewhere:
// every level below --out is examined (--out itself is the user's to choose).
void refuse_links(const fs::path& out, const fs::path& rel) {
    fs::path p = out;
    for (const auto& part : rel) {
        p /= part;
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(p, ec);
        if (ec || !fs::exists(st)) return; // created by us below, as a folder or a temporary
        if (fs::is_symlink(st))
            sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                      p.string() + ": a symbolic link inside the output folder; extraction never writes through one");
    }
}

bool same_contents(const fs::path& p, std::span<const uint8_t> head, std::span<const uint8_t> body) {
    std::error_code ec;
    if (fs::file_size(p, ec) != head.size() + body.size() || ec) return false;
    const sdk::MappedFile have(p);
    const auto b = have.bytes();
    return std::equal(head.begin(), head.end(), b.begin()) &&
           std::equal(body.begin(), body.end(), b.begin() + long(head.size()));
}

} // namespace

ExtractSummary extract_set(const PackageSet& set, const ExtractOptions& opts, const af_host* host, const WarnFn& warn) {
    OutputBatch batch(opts.out);
    std::set<fs::path> existing; // regular files already at a target: compared, not blindly replaced
    auto prepare = [&](const std::set<fs::path>& rels) {
        for (const auto& rel : rels) {
            refuse_links(opts.out, rel);
            std::error_code ec;
            const fs::file_status st = fs::symlink_status(opts.out / rel, ec);
            if (fs::is_regular_file(st)) {
                existing.insert(rel);
            } else if (fs::exists(st)) {
                sdk::fail(AF_ERR_IO, AF_NO_OFFSET, (opts.out / rel).string() + ": exists and is not a regular file");
            }
        }
        // Every directory first: creating them from several threads at once races.
        std::set<fs::path> dirs;
        for (const auto& rel : rels) dirs.insert((opts.out / rel).parent_path());
        for (const auto& d : dirs) {
            std::error_code ec;
            fs::create_directories(d, ec);
            if (ec) sdk::fail(AF_ERR_IO, AF_NO_OFFSET, d.string() + ": cannot create directory: " + ec.message());
        }
    };
    std::mutex mutex;
    std::set<fs::path> conflicts;
    ExtractSummary s =
        extract_files(set, opts, host, warn, prepare,
                      [&](uint64_t, const fs::path& rel, std::span<const uint8_t> head, std::span<const uint8_t> body) {
                          if (existing.count(rel)) {
                              if (same_contents(opts.out / rel, head, body)) return;
                              if (!opts.overwrite) {
                                  std::lock_guard lock(mutex);
                                  conflicts.insert(rel);
                                  return;
                              }
                          }
                          batch.add(opts.out / rel, head, body);
                      });
    // Nothing is renamed into place while one file would be lost: the batch's
    // temporaries go with it.
    if (!conflicts.empty())
        sdk::fail(AF_ERR_IO, AF_NO_OFFSET,
                  (opts.out / *conflicts.begin()).string() +
                      format(": exists with other contents (an edited file?)%s; nothing was written. Give "
                             "--overwrite to replace %s, or extract to another folder",
                             conflicts.size() > 1 ? format(", and %zu more", conflicts.size() - 1).c_str() : "",
                             conflicts.size() > 1 ? "them" : "it"));
    batch.commit();
    return s;
}

ExtractSummary extract_files(const PackageSet& set, const ExtractOptions& opts, const af_host* host, const WarnFn& warn,
                             const std::function<void(const std::set<fs::path>&)>& prepare, const FileSink& sink) {
    const Manifest& m = set.manifest();
    std::vector<uint64_t> chosen;
    bool any_raw = false;
    for (uint64_t j = 0; j < m.files.size(); ++j) {
        if (opts.types && !opts.types->count(m.files[j].type)) continue;
        chosen.push_back(j);
        any_raw |= m.files[j].type == kTypeRawBc;
    }
    // Frames in table order, each with the chosen files it holds.
    std::map<uint32_t, std::vector<uint64_t>> by_frame;
    for (uint64_t j : chosen) by_frame[m.files[j].frame].push_back(j);

    // Texture metadata may sit in a later frame than its texture: decode the
    // frames holding it first and keep those buffers for the main pass, so
    // no frame is decompressed twice.
    std::map<uint32_t, FrameBytes> kept;
    std::unordered_map<uint64_t, std::span<const uint8_t>> metas;
    if (any_raw) {
        std::vector<uint32_t> meta_frames;
        for (const auto& f : m.files)
            if (f.type == kTypeTextureMeta && m.frames[f.frame].is_data()) meta_frames.push_back(f.frame);
        std::sort(meta_frames.begin(), meta_frames.end());
        meta_frames.erase(std::unique(meta_frames.begin(), meta_frames.end()), meta_frames.end());
        std::vector<FrameBytes> decoded(meta_frames.size());
        run_jobs(host, meta_frames.size(), [&](uint64_t i) { decoded[i] = set.decompress(meta_frames[i]); });
        for (size_t i = 0; i < meta_frames.size(); ++i) kept[meta_frames[i]] = std::move(decoded[i]);
        for (const auto& f : m.files) {
            if (f.type != kTypeTextureMeta) continue;
            auto it = kept.find(f.frame);
            metas[f.file] =
                it == kept.end() ? std::span<const uint8_t>() : it->second.bytes().subspan(f.offset, f.size);
        }
    }

    std::vector<Output> outputs(m.files.size());
    std::set<fs::path> rels;
    for (uint64_t j : chosen) {
        outputs[j] = output_for(m.files[j], j, metas);
        rels.insert(extraction_path(m.files[j], outputs[j].extension, opts.groups));
    }
    if (prepare) prepare(rels);

    std::vector<std::pair<uint32_t, std::vector<uint64_t>>> jobs(by_frame.begin(), by_frame.end());
    std::mutex kept_mutex;
    run_jobs(host, jobs.size(), [&](uint64_t i) {
        const uint32_t fi = jobs[i].first;
        FrameBytes own;
        std::span<const uint8_t> data;
        {
            std::lock_guard lock(kept_mutex);
            auto it = kept.find(fi);
            if (it != kept.end()) data = it->second.bytes();
        }
        if (data.data() == nullptr && m.frames[fi].is_data()) {
            own = set.decompress(fi);
            data = own.bytes();
        }
        for (uint64_t j : jobs[i].second) {
            const FileEntry& f = m.files[j];
            const Output& o = outputs[j];
            sink(j, extraction_path(f, o.extension, opts.groups), o.header,
                 f.size ? data.subspan(f.offset, f.size) : std::span<const uint8_t>());
        }
    });

    ExtractSummary s;
    s.files = chosen.size();
    for (const auto& [fi, list] : by_frame) s.frames += m.frames[fi].is_data();
    for (uint64_t j : chosen) {
        ++s.by_extension[outputs[j].extension];
        if (warn && !outputs[j].warning.empty()) warn(outputs[j].warning);
    }
    return s;
}

VerifySummary verify_set(const PackageSet& set, const af_host* host, const WarnFn& warn, const WarnFn& texture_warn) {
    const Manifest& m = set.manifest();
    VerifySummary s;
    const WarnFn counted = [&](const std::string& w) {
        ++s.warnings;
        if (warn) warn(w);
    };
    set.structure_warnings(counted);
    std::vector<uint32_t> data_frames;
    for (uint32_t i = 0; i < m.frames.size(); ++i)
        if (m.frames[i].is_data()) data_frames.push_back(i);
    s.data_frames = data_frames.size();
    // Texture metadata is copied out while its frame is at hand (check 16 needs it).
    std::unordered_map<uint32_t, std::vector<uint64_t>> metas_in;
    for (uint64_t j = 0; j < m.files.size(); ++j)
        if (m.files[j].type == kTypeTextureMeta) metas_in[m.files[j].frame].push_back(j);
    std::vector<std::vector<uint8_t>> meta_bytes(m.files.size());
    run_jobs(host, data_frames.size(), [&](uint64_t i) {
        const FrameBytes fb = set.decompress(data_frames[i]);
        auto it = metas_in.find(data_frames[i]);
        if (it == metas_in.end()) return;
        for (uint64_t j : it->second) {
            auto b = fb.bytes().subspan(m.files[j].offset, m.files[j].size);
            meta_bytes[j].assign(b.begin(), b.end());
        }
    });
    std::unordered_map<uint64_t, std::span<const uint8_t>> metas;
    for (uint64_t j = 0; j < m.files.size(); ++j)
        if (m.files[j].type == kTypeTextureMeta) metas[m.files[j].file] = meta_bytes[j];
    for (uint64_t j = 0; j < m.files.size(); ++j) {
        if (m.files[j].type != kTypeRawBc) continue;
        const Output o = output_for(m.files[j], j, metas);
        if (!o.warning.empty() && texture_warn) texture_warn(o.warning);
    }
    return s;
}

} // namespace af::evr
