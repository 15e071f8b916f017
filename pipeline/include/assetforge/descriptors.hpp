// Descriptor tables (af_container, af_codec, af_stage, af_command) from one
// designated-initializer spec each, so the header, the capability bits and
// every list/count pair are filled the same way in every plugin:
//
//   static const af_container c = af::sdk::make_container({
//       .name = "rawrgba", .extensions = ".afr", .description = "16-byte header + RGBA8",
//       .probe = probe, .read = read, .write = write, .info = info,
//       .read_options = &kNoOptions, .write_options = &kNoOptions, .meta_keys = af::sdk::kNoMetaKeys,
//   });
//
// The spec may be a temporary, but what it points at (strings, format lists,
// ParamTables, meta keys) must be static: the host keeps those pointers.
#pragma once

#include "assetforge/plugin.hpp"

#include <span>

namespace af::sdk {

using ProbeFn = int32_t (*)(const uint8_t* head, uint64_t head_size, const char* path);
using ProbeSizeFn = int32_t (*)(const uint8_t* head, uint64_t head_size, uint64_t file_size, const char* path);
using ReadFn = af_status (*)(const af_host*, const af_input*, const af_options*, af_texture*, af_error*);
using WriteFn = af_status (*)(const af_host*, const af_texture*, const af_options*, af_sink*, af_error*);
using InfoFn = af_status (*)(const af_host*, const af_input*, const af_options*, af_info_text*, af_error*);
using DimsFn = af_status (*)(const af_host*, const af_input*, const af_options*, af_dims*, af_error*);
using CodecFn = af_status (*)(const af_host*, const af_surface*, af_surface*, const af_options*, af_error*);
using StageFn = af_status (*)(const af_host*, const af_stage_io*, const af_options*, af_error*);
using CommandFn = int32_t (*)(const af_host*, int32_t argc, const char* const* argv);

// Option tables and meta keys left NULL stay undeclared (the host then accepts
// anything, as for a plugin built against API 1.1); point at an empty
// ParamTable / kNoMetaKeys to declare "none".
struct ContainerSpec {
    const char* name = nullptr;
    const char* extensions = nullptr; // ".dds;.dds2", lower case
    const char* description = nullptr;
    uint32_t version = 1; // bump when output bytes change
    ProbeFn probe = nullptr;
    ReadFn read = nullptr; // caps follow from which functions are set
    WriteFn write = nullptr;
    InfoFn info = nullptr;
    DimsFn dims = nullptr; // API 1.4: what the header declares (memory estimate, read's allocation bound)
    // API 1.4: probe given the whole file's size too, called instead of `probe` by hosts that have it (keep
    // `probe` set: older hosts call it).
    ProbeSizeFn probe_size = nullptr;
    const ParamTable* read_options = nullptr;
    const ParamTable* write_options = nullptr;
    const char* const* meta_keys = nullptr;
    bool image_files = false; // AF_IMAGE_FILES: pictures (PNG, TGA), which `convert` encodes rather than keeps
};

inline af_container make_container(const ContainerSpec& s) {
    af_container c{};
    init_header(c);
    c.name = s.name;
    c.extensions = s.extensions;
    c.description = s.description;
    c.version = s.version;
    c.caps = (s.read ? AF_CAN_READ : 0u) | (s.write ? AF_CAN_WRITE : 0u) | (s.info ? AF_CAN_INFO : 0u) |
             (s.image_files ? AF_IMAGE_FILES : 0u);
    c.probe = s.probe;
    c.read = s.read;
    c.write = s.write;
    c.info = s.info;
    c.dims = s.dims;
    c.probe_size = s.probe_size;
    if (s.read_options) declare_read_options(c, *s.read_options);
    if (s.write_options) declare_write_options(c, *s.write_options);
    c.meta_keys = s.meta_keys;
    return c;
}

struct CodecSpec {
    const char* name = nullptr;
    const char* description = nullptr;
    uint32_t version = 1;
    std::span<const uint32_t> formats{}; // compressed format ids handled
    CodecFn decode = nullptr;
    CodecFn encode = nullptr;
    const ParamTable* decode_options = nullptr;
    const ParamTable* encode_options = nullptr;
};

inline af_codec make_codec(const CodecSpec& s) {
    af_codec c{};
    init_header(c);
    c.name = s.name;
    c.description = s.description;
    c.version = s.version;
    c.formats = s.formats.data();
    c.format_count = uint32_t(s.formats.size());
    c.decode = s.decode;
    c.encode = s.encode;
    if (s.decode_options) declare_decode_options(c, *s.decode_options);
    if (s.encode_options) declare_encode_options(c, *s.encode_options);
    return c;
}

struct StageSpec {
    const char* name = nullptr; // YAML step name, "pages.extract"
    const char* description = nullptr;
    uint32_t version = 1;
    uint32_t kind = AF_STAGE_MAP;
    uint32_t takes = AF_STAGE_TAKES_BYTES;
    StageFn run = nullptr;
    const ParamTable* params = nullptr; // also fills af_stage.params (names) for hosts before 1.2
    const char* const* meta_keys = nullptr;
};

inline af_stage make_stage(const StageSpec& s) {
    af_stage st{};
    init_header(st);
    st.name = s.name;
    st.description = s.description;
    st.version = s.version;
    st.kind = s.kind;
    st.takes = s.takes;
    st.run = s.run;
    if (s.params) declare_params(st, *s.params);
    st.meta_keys = s.meta_keys;
    return st;
}

struct CommandSpec {
    const char* name = nullptr;
    const char* summary = nullptr;
    CommandFn run = nullptr;
};

inline af_command make_command(const CommandSpec& s) {
    af_command c{};
    init_header(c);
    c.name = s.name;
    c.summary = s.summary;
    c.run = s.run;
    return c;
}

} // namespace af::sdk
