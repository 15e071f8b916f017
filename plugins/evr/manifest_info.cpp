#include "manifest_info.hpp"

#include "evr_reader.hpp"

#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

#include <map>

namespace af::evr {

namespace {

using sdk::format;
using ull = unsigned long long;

} // namespace

int32_t probe_manifest(const uint8_t* head, uint64_t size, const char*) {
    // Magic plus a header-length field a reader accepts: "ZSTD" alone is too
    // short a signature to claim a file on.
    if (!head || size < 8 || head[0] != 'Z' || head[1] != 'S' || head[2] != 'T' || head[3] != 'D') return AF_PROBE_NO;
    const uint32_t hl = uint32_t(head[4]) | uint32_t(head[5]) << 8 | uint32_t(head[6]) << 16 | uint32_t(head[7]) << 24;
    return hl == 16 || hl == 24 ? AF_PROBE_MAGIC : AF_PROBE_NO;
}

af_status info_manifest(const af_host* host, const af_input* in, const af_options*, af_info_text* out, af_error* err) {
    return sdk::guard(err, [&] {
        const std::string path = in->path ? in->path : "manifest";
        std::vector<std::string> warnings;
        const Manifest m = read_manifest({in->data, in->size}, path, {}, [&](const std::string& w) {
            warnings.push_back(w);
            if (in->warn) in->warn(in->diag_ctx, AF_NO_OFFSET, w.c_str());
        });
        uint64_t data_frames = 0;
        for (const auto& r : m.frames) data_frames += r.is_data();
        std::map<uint64_t, uint64_t> types;
        for (const auto& f : m.files) ++types[f.type];
        nlohmann::json j = {{"container", "evr-manifest"},
                            {"valid", true},
                            {"package_count", m.package_count},
                            {"files", m.files.size()},
                            {"metadata_entries", m.metadata.size()},
                            {"frame_records", m.frames.size()},
                            {"data_frames", data_frames},
                            {"body_size", m.body_size},
                            {"archive_header_length", m.header_length},
                            {"warnings", warnings}};
        std::string text = format("container: evr-manifest (Echo VR package manifest)\nparts: %u\nfiles: %zu\n"
                                  "frames: %llu data frames, %zu records\nbody: %llu bytes\n",
                                  m.package_count, m.files.size(), (ull)data_frames, m.frames.size(), (ull)m.body_size);
        nlohmann::json jt = nlohmann::json::object();
        for (const auto& [t, n] : types) {
            const char* name = type_name(t);
            jt[hex16(t)] = n;
            text += format("type %s: %llu file(s)%s%s\n", hex16(t).c_str(), (ull)n, *name ? " " : "", name);
        }
        j["types"] = jt;
        for (const auto& w : warnings) text += "warning: " + w + "\n";
        out->json = sdk::host_strdup(host, j.dump());
        out->text = sdk::host_strdup(host, text);
    });
}

} // namespace af::evr
