// Extracting a package set into the tree <out>/[<frame>/]<type>/<file><ext>,
// and verifying one: every data frame decompressed once, in parallel on the
// host's arena.
#pragma once

#include "package_set.hpp"

#include "assetforge/plugin_abi.h"

#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>

namespace af::evr {

struct ExtractOptions {
    std::filesystem::path out;
    bool groups = false;                     // keep the frame index as a directory level
    std::optional<std::set<uint64_t>> types; // only files of these type symbols
    // An existing file with other contents is replaced only with this (else
    // the extraction fails, writing nothing); links inside `out` never are.
    bool overwrite = false;
};

struct ExtractSummary {
    uint64_t files = 0;
    uint64_t frames = 0; // data frames decompressed
    std::map<std::string, uint64_t> by_extension;
};

// Relative output path of file `index` (section 11 of the package spec).
std::filesystem::path extraction_path(const FileEntry& f, const std::string& extension, bool groups);

// `host` may be null (then frames are decoded serially). Warnings (check 16,
// raw textures written as .bc) go to `warn` in file order, after the work.
ExtractSummary extract_set(const PackageSet& set, const ExtractOptions& opts, const af_host* host, const WarnFn& warn);

// One extracted file: its relative path, the header written in front of the
// stored bytes (a rebuilt DDS header, or nothing) and the stored bytes, which
// live only for the call. Called from several threads at once.
using FileSink = std::function<void(uint64_t index, const std::filesystem::path& rel, std::span<const uint8_t> head,
                                    std::span<const uint8_t> body)>;
// What extract_set does, with the files handed to `sink` instead of written
// (`opts.out` unused). `prepare` sees every path before any frame is decoded.
ExtractSummary extract_files(const PackageSet& set, const ExtractOptions& opts, const af_host* host, const WarnFn& warn,
                             const std::function<void(const std::set<std::filesystem::path>&)>& prepare,
                             const FileSink& sink);

struct VerifySummary {
    uint64_t data_frames = 0;
    uint64_t warnings = 0;
};

// Decompresses every data frame, referenced or not (check 12), and reports
// check 15 to `warn` and check 16 (a raw texture that will be written as .bc)
// to `texture_warn`: a clean set may hold such textures, so callers keep the
// two apart (verify --strict fails on the first kind only).
// Throws on the first failing frame in table order.
VerifySummary verify_set(const PackageSet& set, const af_host* host, const WarnFn& warn, const WarnFn& texture_warn);

} // namespace af::evr
