/* AssetForge plugin ABI — the only thing a plugin and the host share.
 *
 * Plain C so that a plugin built by another compiler (or another language)
 * loads into any host speaking the same major version.
 *
 * Rules
 * -----
 * 1. Every table starts with AF_TABLE_HEADER: struct_size, api_major, api_minor.
 *    The reader of a table only looks at the fields that struct_size covers;
 *    anything past it counts as zero/NULL. Tables only grow at the end, and
 *    every growth bumps AF_API_MINOR. Removing or reordering a field, or
 *    changing its meaning, bumps AF_API_MAJOR; the host refuses plugins whose
 *    major differs from its own.
 * 2. Arrays of descriptors are arrays of *pointers*, because each descriptor
 *    carries its own struct_size and so may be shorter than the host's.
 * 3. Memory crossing the boundary is freed only by the side that allocated it.
 *    Anything a plugin hands to the host to keep (texture data, palettes, text,
 *    emitted bytes that the host adopts) is allocated with af_host.alloc and
 *    freed by the host with af_host.free. Anything the host passes into a
 *    plugin call is borrowed for the duration of that call only.
 *    Descriptor tables and their strings are static in the plugin and must
 *    stay valid until the library is unloaded.
 * 4. No C++ types, exceptions or STL containers cross the boundary. A plugin
 *    reports failure with an af_status and fills the af_error it was given.
 * 5. Plugins never start threads; they call af_host.parallel_for, which runs
 *    on the host's task arena, so a build never oversubscribes the machine.
 * 6. The exported entry symbol is `assetforge_plugin_entry` (AF_ENTRY_SYMBOL).
 *    It is called once, after loading, with the host services table, and
 *    returns the plugin's af_plugin table (static storage).
 * 7. A host of an older minor hands a shorter af_host: before calling a
 *    service added after API 1.0, check AF_HOST_HAS(host, field), which is
 *    false when the host's table ends before the field or leaves it NULL.
 *
 * History: 1.1 af_host.max_items; 1.2 parameter declarations (af_param);
 * 1.3 af_host.resample and af_host.write_texture, AF_TEX_LINEAR, parallel_for honours
 * cancellation; 1.4 af_container.dims (af_dims), af_container.probe_size.
 */
#ifndef ASSETFORGE_PLUGIN_ABI_H
#define ASSETFORGE_PLUGIN_ABI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define AF_API_MAJOR 1
#define AF_API_MINOR 4
#define AF_ENTRY_SYMBOL "assetforge_plugin_entry"

#if defined(_WIN32)
#define AF_EXPORT __declspec(dllexport)
#else
#define AF_EXPORT __attribute__((visibility("default")))
#endif

#define AF_TABLE_HEADER                                                                                                \
    uint32_t struct_size;                                                                                              \
    uint16_t api_major;                                                                                                \
    uint16_t api_minor

typedef enum af_status {
    AF_OK = 0,
    AF_ERR_INVALID_DATA = 1, /* the input violates its format */
    AF_ERR_UNSUPPORTED = 2,  /* well-formed, but a feature this plugin cannot handle */
    AF_ERR_IO = 3,
    AF_ERR_NO_MEMORY = 4, /* allocation failed or a configured limit was hit */
    AF_ERR_CANCELLED = 5,
    AF_ERR_USAGE = 6, /* bad options or arguments */
    AF_ERR_INTERNAL = 7
} af_status;

#define AF_NO_OFFSET UINT64_MAX

/* Filled by the side that fails. The host adds the file name. */
typedef struct af_error {
    int32_t code; /* af_status */
    uint32_t reserved;
    uint64_t offset;    /* byte offset in the input the error refers to, or AF_NO_OFFSET */
    char message[1024]; /* NUL-terminated, one line, no file name */
} af_error;

typedef struct af_kv {
    const char* key;
    const char* value;
} af_kv;

/* String options and step parameters: "quality" = "high", "mips" = "true". */
typedef struct af_options {
    const af_kv* items;
    uint32_t count;
} af_options;

/* Texture flags */
#define AF_TEX_SRGB 0x1u           /* colour data is sRGB encoded */
#define AF_TEX_CUBE 0x2u           /* faces == 6, face order +X -X +Y -Y +Z -Z */
#define AF_TEX_VOLUME 0x4u         /* depth > 1 is a 3-D texture */
#define AF_TEX_NORMAL_MAP 0x8u     /* content is a tangent-space normal map */
#define AF_TEX_PREMULTIPLIED 0x10u /* colour premultiplied by alpha */
#define AF_TEX_LINEAR 0x20u        /* API 1.3: values are known to be linear data (normals, masks), never sRGB */

/* Alpha modes, same numbers as DDS_HEADER_DXT10.miscFlags2 */
#define AF_ALPHA_UNKNOWN 0u
#define AF_ALPHA_STRAIGHT 1u
#define AF_ALPHA_PREMULTIPLIED 2u
#define AF_ALPHA_OPAQUE 3u
#define AF_ALPHA_CUSTOM 4u

/* A texture: every surface of every mip, face and layer in one buffer.
 * Order: for layer (array element / animation frame) → for face → for mip
 * (largest first) → the surface, which holds all depth slices of that mip.
 * A surface is tightly packed: rows of texels (or of 4×4 blocks for
 * block-compressed formats, max(1, ceil(w/4)) per row), no padding.
 * Format ids: DXGI_FORMAT numbers, or AssetForge ids >= 0x10000
 * (see formats.hpp). P8 textures carry 256 RGBA8 palette entries per layer. */
typedef struct af_texture {
    AF_TABLE_HEADER;
    uint32_t format;
    uint32_t width, height, depth;
    uint32_t mip_count;
    uint32_t layer_count;
    uint32_t face_count;
    uint32_t flags;      /* AF_TEX_* */
    uint32_t alpha_mode; /* AF_ALPHA_* */
    uint8_t* data;
    uint64_t data_size;
    uint8_t* palette; /* P8 only: layer_count * 256 * 4 bytes, R G B A */
    uint64_t palette_size;
    const af_kv* meta; /* item metadata ({frame}, {face}, …) */
    uint32_t meta_count;
    uint32_t reserved;
} af_texture;

/* One surface for codec calls: a 2-D (or 3-D, depth slices back to back) image. */
typedef struct af_surface {
    uint32_t format;
    uint32_t width, height, depth;
    uint8_t* data;
    uint64_t size;
} af_surface;

/* Bytes of an input file. The host maps the file; plugins never open it. */
typedef struct af_input {
    AF_TABLE_HEADER;
    const char* path; /* for messages only */
    const uint8_t* data;
    uint64_t size;
    /* Non-fatal problems (trailing bytes, odd flags). May be NULL. */
    void* diag_ctx;
    void (*warn)(void* diag_ctx, uint64_t offset, const char* message);
} af_input;

/* Where a writer puts its bytes. The host writes to a temporary file and
 * renames it into place only when the call returned AF_OK. */
typedef struct af_sink {
    void* ctx;
    af_status (*write)(void* ctx, const void* data, uint64_t size);
} af_sink;

typedef void (*af_range_fn)(void* ctx, uint64_t begin, uint64_t end);

/* API 1.3: how af_host.resample filters. A zeroed table (header aside) means
 * kaiser, clamp, no linear light, no alpha weighting; pass NULL instead of a
 * table for the host's defaults (kaiser, clamp, linear light, alpha-weighted). */
#define AF_FILTER_KAISER 0u /* Kaiser-windowed sinc, radius 3: sharp, little ringing */
#define AF_FILTER_BOX 1u
#define AF_FILTER_TRIANGLE 2u
#define AF_FILTER_LANCZOS3 3u
#define AF_FILTER_MITCHELL 4u
#define AF_FILTER_POINT 5u /* nearest texel */
#define AF_EDGE_CLAMP 0u   /* repeat the edge texel */
#define AF_EDGE_WRAP 1u    /* tile */
/* Filter sRGB data in linear light (sRGB data: an _SRGB format, or AF_RESAMPLE_SRGB). */
#define AF_RESAMPLE_LINEAR_LIGHT 0x1u
/* Weight colour by alpha while filtering, so transparent texels do not bleed into opaque ones. */
#define AF_RESAMPLE_PREMULTIPLIED_ALPHA 0x2u
/* The colour of a UNORM or float surface is sRGB encoded (as if its format were _SRGB). */
#define AF_RESAMPLE_SRGB 0x4u

typedef struct af_resample_options {
    AF_TABLE_HEADER;
    uint32_t filter; /* AF_FILTER_* */
    uint32_t edge;   /* AF_EDGE_* */
    uint32_t flags;  /* AF_RESAMPLE_* */
    uint32_t reserved;
} af_resample_options;

/* Services the host gives every plugin. */
typedef struct af_host {
    AF_TABLE_HEADER;
    const char* host_version;
    /* Returns NULL when out of memory or when the size exceeds the configured
     * per-allocation limit; never throws. */
    void* (*alloc)(uint64_t size);
    void (*free)(void* ptr);
#define AF_LOG_DEBUG 0
#define AF_LOG_INFO 1
#define AF_LOG_WARN 2
#define AF_LOG_ERROR 3
    void (*log)(int32_t level, const char* message);
    /* Non-zero once the user asked to stop; long loops poll it. */
    int32_t (*cancelled)(void);
    void (*progress)(uint64_t done, uint64_t total);
    /* Calls fn(ctx, b, e) for disjoint sub-ranges covering [begin, end),
     * in parallel on the host's arena; returns when all are done. Since API
     * 1.3 the host skips the sub-ranges not yet started once cancelled()
     * is set: check cancelled() after it returns before trusting the result. */
    void (*parallel_for)(uint64_t begin, uint64_t end, uint64_t grain, af_range_fn fn, void* ctx);
    /* Converts one surface between any two formats the host knows: through
     * the core for uncompressed formats, through codec plugins for
     * compressed ones. dst->format/width/height/depth are set by the caller;
     * dst->data is allocated by the caller with dst->size bytes. */
    af_status (*convert)(const af_surface* src, af_surface* dst, const af_options* options, af_error* error);
    /* Limits the host enforces; plugins check sizes against them before
     * allocating (0 = no limit). */
    uint64_t max_texture_bytes;
    uint32_t max_dimension;
    uint32_t max_surfaces;
    /* API 1.1: most items (pages, frames, entries) one container file may yield. */
    uint32_t max_items;
    uint32_t reserved_1_1;
    /* API 1.3 (check AF_HOST_HAS): resizes src to dst->width x dst->height
     * with the host's filters. Both surfaces have the same format,
     * R8G8B8A8_UNORM(_SRGB) or R32G32B32A32_FLOAT, and depth 1; dst->data is
     * allocated by the caller. options may be NULL (see af_resample_options).
     * The result does not depend on the number of threads. */
    af_status (*resample)(const af_surface* src, af_surface* dst, const af_resample_options* options, af_error* error);
    /* API 1.3 (check AF_HOST_HAS): writes tex through the container named
     * `container` ("png" is built into the host; others come from plugins)
     * into `out`, with that container's write options. */
    af_status (*write_texture)(const char* container, const af_texture* tex, const af_options* options, af_sink* out,
                               af_error* error);
} af_host;

/* Whether a host table provides a service added after API 1.0 (rule 7). */
#define AF_HOST_HAS(host, field)                                                                                       \
    ((host) != NULL && (host)->struct_size >= offsetof(af_host, field) + sizeof((host)->field) && (host)->field != NULL)

/* ---- descriptors ---------------------------------------------------- */

#define AF_CAN_READ 0x1u
#define AF_CAN_WRITE 0x2u
#define AF_CAN_INFO 0x4u

/* Metadata key a container's read may set in af_texture.meta: the name of the encoding the file stores when the
 * texture read is a decoding of it into a format of the table ("ETC1" read as R8G8B8A8_UNORM). No API change: a
 * host that does not know the key keeps it as any other metadata. */
#define AF_META_STORED_FORMAT "stored_format"
/* API 1.3 (a bit older hosts ignore): the container's files are pictures for
 * people (PNG, TGA), not GPU-ready textures, so `convert` encodes them (its
 * `auto`) where it would keep a texture container's stored format. */
#define AF_IMAGE_FILES 0x8u

/* Probe scores */
#define AF_PROBE_NO 0
#define AF_PROBE_EXTENSION 10 /* name matches, contents unknown */
#define AF_PROBE_MAGIC 100    /* magic bytes match */

/* Text the plugin allocated with af_host.alloc; the host frees both. */
typedef struct af_info_text {
    char* json; /* one JSON object */
    char* text; /* human-readable report, lines ending in '\n' */
} af_info_text;

/* ---- parameter declarations (API 1.2) ------------------------------
 *
 * A stage declares its parameters, a container its read and write options,
 * a codec its encode and decode options, so that the host checks a pipeline
 * when it loads: an unknown name, a value of the wrong type or outside the
 * choices is an error naming the file, line and column, before anything runs.
 * Values still reach the plugin as text (af_options); the host normalises
 * AF_PARAM_BOOL values to "true"/"false", AF_PARAM_INTEGER values to decimal
 * and AF_PARAM_IGNORE_CASE choices to their declared spelling, and leaves
 * every other value as written.
 *
 * A table that declares nothing (a NULL pointer, as in every plugin built
 * against API 1.0/1.1) is not checked: its stage, container or codec accepts
 * any parameter and any value, as before. To declare "no parameters", point
 * at an empty list (count 0, pointer not NULL). */

#define AF_PARAM_TEXT 0u    /* any text */
#define AF_PARAM_INTEGER 1u /* decimal or 0x-hex, within [min, max] when the flags say so */
#define AF_PARAM_NUMBER 2u  /* a finite decimal number, within [min, max] (or (min, max]) */
#define AF_PARAM_BOOL 3u    /* true/false, yes/no, on/off, 1/0 (any case) */
#define AF_PARAM_ENUM 4u    /* one of `choices` */
#define AF_PARAM_FILE 5u    /* a path to a file the stage reads (relative: to af_stage_io.base_dir) */
#define AF_PARAM_DIR 6u     /* a path to a directory the stage reads */
/* Comma-separated values (a YAML list is joined with ','), each one of `choices` when that is not NULL. */
#define AF_PARAM_LIST 7u
/* A type this host does not know (from a newer minor) is checked as AF_PARAM_TEXT. */

#define AF_PARAM_HAS_MIN 0x1u
#define AF_PARAM_HAS_MAX 0x2u
#define AF_PARAM_MIN_EXCLUSIVE 0x4u /* the value must be greater than min, not equal to it */
#define AF_PARAM_IGNORE_CASE 0x8u   /* choices match in any letter case */
#define AF_PARAM_REQUIRED 0x10u     /* a stage parameter that must be given */

typedef struct af_param {
    AF_TABLE_HEADER;
    const char* name;
    uint32_t type;              /* AF_PARAM_* */
    uint32_t flags;             /* AF_PARAM_HAS_MIN | … */
    const char* const* choices; /* AF_PARAM_ENUM, AF_PARAM_LIST: NULL-terminated */
    const char* default_value;  /* as text, or NULL; the host fills in a stage parameter's default */
    double min, max;            /* AF_PARAM_INTEGER, AF_PARAM_NUMBER, per the flags */
    const char* doc;            /* one line, for messages and listings */
} af_param;

/* API 1.4: what a file's header declares, before its pixels are read. All
 * zero counts read as 1; format 0 means "not known" and is costed as 16 bytes
 * a texel. */
typedef struct af_dims {
    AF_TABLE_HEADER;
    uint32_t format; /* of the texture read will return (DXGI / AssetForge id) */
    uint32_t width, height, depth;
    uint32_t layer_count;
    uint32_t face_count;
    uint32_t mip_count;
    uint32_t reserved;
} af_dims;

typedef struct af_container {
    AF_TABLE_HEADER;
    const char* name;       /* "dds" */
    const char* extensions; /* ".dds;.DDS" style list, ';'-separated, lower case */
    const char* description;
    uint32_t version; /* bump when output bytes change: part of action keys */
    uint32_t caps;    /* AF_CAN_* */
    /* Looks at the first bytes (up to 4096) and the path; returns AF_PROBE_*. */
    int32_t (*probe)(const uint8_t* head, uint64_t head_size, const char* path);
    af_status (*read)(const af_host* host, const af_input* in, const af_options* options, af_texture* out,
                      af_error* error);
    af_status (*write)(const af_host* host, const af_texture* tex, const af_options* options, af_sink* out,
                       af_error* error);
    af_status (*info)(const af_host* host, const af_input* in, const af_options* options, af_info_text* out,
                      af_error* error);
    /* API 1.2: the options read and write take (see af_param; NULL: undeclared,
     * any option accepted), and the metadata keys read puts in af_texture.meta,
     * NULL-terminated (NULL: undeclared, output placeholders go unchecked). */
    const af_param* const* read_options;
    const af_param* const* write_options;
    uint32_t read_option_count;
    uint32_t write_option_count;
    const char* const* meta_keys;
    /* (A read that decodes an encoding the format table has no name for, ETC1 or ASTC say, into a format it has:
     * AF_META_STORED_FORMAT names the encoding the file holds, so reports and `convert` name it too.) */
    /* API 1.4 (optional): fills `out` from the header alone. in->data holds
     * the first bytes of the file (64 KiB, or all of a smaller file) and
     * in->size how many; the host does not give the rest. The host's memory
     * estimate uses it before the file is read, and then lets read take from
     * af_host.alloc no more than the texture `out` describes (plus a little):
     * more is an error naming the plugin and the file. NULL, or a table
     * from before 1.4: the file is estimated from its size, read unbounded. */
    af_status (*dims)(const af_host* host, const af_input* in, const af_options* options, af_dims* out,
                      af_error* error);
    /* API 1.4 (optional): probe, also given the size of the whole file (the
     * head is still its first bytes, up to 4096), so a format without a magic
     * number can check that the file holds what its header declares. Called
     * in place of probe when set. */
    int32_t (*probe_size)(const uint8_t* head, uint64_t head_size, uint64_t file_size, const char* path);
} af_container;

typedef struct af_codec {
    AF_TABLE_HEADER;
    const char* name; /* "bc" */
    const char* description;
    uint32_t version;
    const uint32_t* formats; /* compressed format ids handled */
    uint32_t format_count;
    /* src: compressed surface. dst: uncompressed, format R8G8B8A8_UNORM(_SRGB),
     * R16G16B16A16_FLOAT or R32G32B32A32_FLOAT, allocated by the caller. */
    af_status (*decode)(const af_host* host, const af_surface* src, af_surface* dst, const af_options* options,
                        af_error* error);
    /* src: R8G8B8A8_UNORM(_SRGB) or R32G32B32A32_FLOAT; dst allocated by the caller. */
    af_status (*encode)(const af_host* host, const af_surface* src, af_surface* dst, const af_options* options,
                        af_error* error);
    /* API 1.2: the options decode and encode take (see af_param; NULL: undeclared). */
    const af_param* const* decode_options;
    const af_param* const* encode_options;
    uint32_t decode_option_count;
    uint32_t encode_option_count;
} af_codec;

/* An item flowing through a pipeline: raw bytes or a texture, with metadata. */
typedef struct af_item {
    AF_TABLE_HEADER;
    const char* name;     /* relative name; used by output templates as {name} */
    const uint8_t* bytes; /* raw bytes, or NULL when texture is set */
    uint64_t size;
    const af_texture* texture;
    const af_kv* meta;
    uint32_t meta_count;
    uint32_t reserved;
} af_item;

#define AF_STAGE_MAP 1    /* one item in, any number out */
#define AF_STAGE_GATHER 2 /* all items of a job in, one out */

#define AF_STAGE_TAKES_BYTES 0x1u
#define AF_STAGE_TAKES_TEXTURE 0x2u

typedef struct af_stage_io {
    AF_TABLE_HEADER;
    const af_item* const* inputs;
    uint32_t input_count;
    uint32_t reserved;
    const char* base_dir; /* directory that relative paths in parameters resolve against */
    void* ctx;
    /* The host copies the item before returning. */
    af_status (*emit)(void* ctx, const af_item* item);
} af_stage_io;

typedef struct af_stage {
    AF_TABLE_HEADER;
    const char* name; /* YAML step name, "pages.extract" */
    const char* description;
    uint32_t version;
    uint32_t kind;  /* AF_STAGE_MAP or AF_STAGE_GATHER */
    uint32_t takes; /* AF_STAGE_TAKES_* */
    uint32_t reserved;
    /* NULL-terminated list of accepted parameter names (NULL: any). Hosts
     * before API 1.2 read only this; newer hosts use param_decls when set. */
    const char* const* params;
    af_status (*run)(const af_host* host, const af_stage_io* io, const af_options* params, af_error* error);
    /* API 1.2: the parameters with their types (see af_param; NULL: only the
     * names in `params` are checked), and the metadata keys the emitted items
     * may carry beyond those of the input, NULL-terminated (NULL: undeclared,
     * so output placeholders of jobs using the stage go unchecked). */
    const af_param* const* param_decls;
    const char* const* meta_keys;
    uint32_t param_decl_count;
    uint32_t reserved_1_2;
} af_stage;

/* A CLI subcommand: `assetforge NAME args…`. Returns the process exit code
 * (0 ok, 1 some input failed, 2 usage). Plugins print with stdio. */
typedef struct af_command {
    AF_TABLE_HEADER;
    const char* name;
    const char* summary;
    int32_t (*run)(const af_host* host, int32_t argc, const char* const* argv);
} af_command;

typedef struct af_plugin {
    AF_TABLE_HEADER;
    const char* name;
    const char* version;
    const char* description;
    const af_container* const* containers;
    uint32_t container_count;
    const af_codec* const* codecs;
    uint32_t codec_count;
    const af_stage* const* stages;
    uint32_t stage_count;
    const af_command* const* commands;
    uint32_t command_count;
} af_plugin;

typedef const af_plugin* (*af_plugin_entry_fn)(const af_host* host);

#ifdef __cplusplus
}
#endif

#endif
