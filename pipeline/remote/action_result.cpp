#include "remote/action_result.hpp"

#include "remote_execution.pb.h"

#include <algorithm>
#include <climits>

namespace af::remote {

namespace reapi = build::bazel::remote::execution::v2;

namespace {
constexpr size_t kMaxWarnings = 64;
constexpr size_t kMaxWarningBytes = 1024;
} // namespace

std::string encode_action_result(const CacheEntry& entry) {
    reapi::ActionResult result;
    for (const CachedFile& f : entry.files) {
        reapi::OutputFile* out = result.add_output_files();
        out->set_path(f.path);
        out->mutable_digest()->set_hash(f.digest.hash);
        out->mutable_digest()->set_size_bytes(f.digest.size);
    }
    std::string err;
    for (const std::string& w : entry.warnings) {
        // One a line: a line break inside one would make two.
        std::string line = w;
        for (char& c : line)
            if (c == '\n' || c == '\r') c = ' ';
        err += line + "\n";
    }
    if (!err.empty()) result.set_stderr_raw(err);
    result.mutable_execution_metadata()->set_worker("assetforge");
    return result.SerializeAsString();
}

std::optional<CacheEntry> decode_action_result(std::string_view bytes, std::string* why) {
    reapi::ActionResult result;
    if (bytes.size() > static_cast<size_t>(INT_MAX) ||
        !result.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        *why = "is not an ActionResult protobuf";
        return std::nullopt;
    }
    if (result.exit_code() != 0) {
        *why = "records a failed action (exit code " + std::to_string(result.exit_code()) + ")";
        return std::nullopt;
    }
    if (result.output_directories_size() || result.output_file_symlinks_size() ||
        result.output_directory_symlinks_size() || result.output_symlinks_size()) {
        *why = "has directory or symlink outputs, which are not restored";
        return std::nullopt;
    }
    CacheEntry entry;
    entry.files.reserve(static_cast<size_t>(result.output_files_size()));
    for (const reapi::OutputFile& out : result.output_files())
        entry.files.push_back({out.path(), {out.digest().hash(), out.digest().size_bytes()}});
    // Another client's stderr may be anything: a few lines of a sane length are shown, the rest is summed up in
    // the last. Decoded warnings re-encode to the same lines (an entry passes unchanged through a build that
    // stores and re-uploads it): a carriage return becomes a space as encode makes it, and the summary takes
    // the last of the kMaxWarnings places, so the encoded entry is never itself over the cap.
    const std::string& err = result.stderr_raw();
    std::vector<std::string> lines;
    size_t more = 0;
    for (size_t pos = 0; pos < err.size();) {
        size_t end = err.find('\n', pos);
        if (end == std::string::npos) end = err.size();
        if (end > pos && lines.size() < kMaxWarnings) {
            std::string line = err.substr(pos, std::min(end - pos, kMaxWarningBytes));
            std::replace(line.begin(), line.end(), '\r', ' ');
            lines.push_back(std::move(line));
        } else if (end > pos) {
            ++more;
        }
        pos = end + 1;
    }
    if (more) {
        more += 1; // the line the summary takes the place of
        lines.back() = std::to_string(more) + " more line(s) of warnings in the cache entry";
    }
    entry.warnings = std::move(lines);
    return entry;
}

} // namespace af::remote
