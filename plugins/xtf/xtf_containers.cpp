#include "xtf_containers.hpp"

#include "resave_meta.hpp"
#include "texture_info.hpp"
#include "vtf_file.hpp"
#include "xtf_reader.hpp"
#include "xtf_writer.hpp"

#include "assetforge/plugin.hpp"

#include <cctype>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace af::xtf {

namespace {

bool has_extension(const char* path, const char* ext) {
    if (!path) return false;
    const size_t n = std::strlen(path), e = std::strlen(ext);
    if (n < e) return false;
    for (size_t i = 0; i < e; ++i)
        if (std::tolower(static_cast<unsigned char>(path[n - e + i])) != ext[i]) return false;
    return true;
}

af_status write_sink(af_sink* out, const std::vector<uint8_t>& bytes) {
    return out->write(out->ctx, bytes.data(), bytes.size());
}

// sdk::export_texture leaves metadata out (its strings need an owner). The
// host copies af_texture.meta as soon as read returns (import_texture), so the
// strings live here, per thread, until this thread's next read.
void export_with_meta(const af_host* host, const Texture& t, af_texture* out) {
    thread_local std::map<std::string, std::string> strings;
    thread_local std::vector<af_kv> kv;
    sdk::export_texture(host, t, out);
    strings = t.meta;
    kv.clear();
    for (const auto& [k, v] : strings) kv.push_back({k.c_str(), v.c_str()});
    out->meta = kv.data();
    out->meta_count = uint32_t(kv.size());
}

af_status info_text(const InfoReport& r, const af_host* host, af_info_text* out) {
    out->json = sdk::host_strdup(host, r.json);
    out->text = sdk::host_strdup(host, r.text);
    return AF_OK;
}

} // namespace

int32_t probe_xtf(const uint8_t* head, uint64_t n, const char* path) {
    if (n >= 4 && std::memcmp(head, "XTF\0", 4) == 0) return AF_PROBE_MAGIC;
    return has_extension(path, ".xtf") ? AF_PROBE_EXTENSION : AF_PROBE_NO;
}

int32_t probe_vtf(const uint8_t* head, uint64_t n, const char* path) {
    if (n >= 4 && std::memcmp(head, "VTF\0", 4) == 0) return AF_PROBE_MAGIC;
    return has_extension(path, ".vtf") ? AF_PROBE_EXTENSION : AF_PROBE_NO;
}

af_status read_xtf_container(const af_host* host, const af_input* in, const af_options* options, af_texture* out,
                             af_error* error) {
    return sdk::guard(error, [&] {
        sdk::Options o(options);
        const bool keep = o.flag("keep_indices", false);
        const std::string part = o.choice("image", "main", {"main", "fallback"});
        XtfFile f = read_xtf(in->data, in->size, host);
        if (f.layout.nomip_repaired && in->warn)
            in->warn(in->diag_ctx, 16, "NOMIP flag missing on a single-mip file (read as NOMIP, like vtfpp)");
        if (in->warn && in->size > f.layout.file_size)
            in->warn(in->diag_ctx, f.layout.file_size, "trailing bytes after the padded end of the XTF data");
        export_with_meta(host, xtf_output_texture(std::move(f), keep, part == "fallback"), out);
    });
}

af_status write_xtf_container(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                              af_error* error) {
    return sdk::guard(error, [&] {
        const auto bytes = write_xtf(host, sdk::import_texture(*tex), parse_xtf_write_options(options));
        if (af_status s = write_sink(out, bytes); s != AF_OK) sdk::fail(s, AF_NO_OFFSET, "cannot write the output");
    });
}

af_status info_xtf_container(const af_host* host, const af_input* in, const af_options*, af_info_text* out,
                             af_error* error) {
    return sdk::guard(error, [&] { info_text(describe_xtf(in->data, in->size), host, out); });
}

af_status read_vtf_container(const af_host* host, const af_input* in, const af_options*, af_texture* out,
                             af_error* error) {
    return sdk::guard(error, [&] {
        VtfFile f = read_vtf(in->data, in->size, host);
        f.image.meta = vtf_source_meta(f.header.image_format);
        export_with_meta(host, f.image, out);
    });
}

af_status write_vtf_container(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                              af_error* error) {
    return sdk::guard(error, [&] {
        const auto bytes = write_vtf(host, sdk::import_texture(*tex), parse_vtf_write_options(options));
        if (af_status s = write_sink(out, bytes); s != AF_OK) sdk::fail(s, AF_NO_OFFSET, "cannot write the output");
    });
}

af_status info_vtf_container(const af_host* host, const af_input* in, const af_options*, af_info_text* out,
                             af_error* error) {
    return sdk::guard(error, [&] { info_text(describe_vtf(in->data, in->size), host, out); });
}

} // namespace af::xtf
