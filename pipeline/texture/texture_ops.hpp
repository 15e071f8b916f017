// Texture operations: Texture in, Texture out. The pipeline's texture steps
// and the `convert` command are thin callers of these, so both routes give
// the same bytes for the same request (as texconv is over DirectXTex).
//
// Colour space, one rule for every route (docs/colour-space.md):
// - data is sRGB when its format is an _SRGB one or the texture carries
//   AF_TEX_SRGB; it is known linear when it carries AF_TEX_LINEAR (normal
//   maps, data the user declared linear) or its format decodes to float;
//   otherwise its space is unknown and treated as sRGB colour, which is what
//   untagged game textures hold.
// - converting between formats never changes stored values: _SRGB is a tag.
#pragma once

#include "assetforge/picture.hpp"
#include "assetforge/texture.hpp"
#include "core/image_ops.hpp"
#include "host/plugin_registry.hpp"
#include "texture/auto_format.hpp"
#include "texture/format_names.hpp"
#include "texture/normal_map_rule.hpp"

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace af::texture {

using OptionMap = std::map<std::string, std::string>;

// What operations need from the host: codecs through the registry, and a
// record of every plugin they used (the engine puts the identities into
// action keys, so a new codec version rebuilds).
struct Ops {
    const host::PluginRegistry& reg;
    std::vector<const host::LoadedPlugin*> used{};
    void use(const host::LoadedPlugin* p) {
        if (p) used.push_back(p);
    }
};

// ---- colour space -------------------------------------------------------
bool is_srgb(const Texture& t);
bool known_linear(const Texture& t);
enum class ColourTag { Keep, Srgb, Linear };
// Relabels the data (format twin and flags); stored values are unchanged.
void retag(Texture& t, ColourTag tag);

// ---- what the layer reads ------------------------------------------------
// Counts, on this thread while one is alive, every surface the layer turns
// into pixels (by the format it was stored in) and every analysis of a top
// level: how tests hold an action to reading its input once.
class ReadCount {
  public:
    ReadCount();
    ~ReadCount();
    ReadCount(const ReadCount&) = delete;
    ReadCount& operator=(const ReadCount&) = delete;
    size_t decodes(uint32_t format) const;
    size_t decodes() const;
    size_t analyses() const { return analyses_; }

  private:
    friend void count_decode(uint32_t format);
    friend void count_analysis();
    std::map<uint32_t, size_t> decodes_;
    size_t analyses_ = 0;
    ReadCount* outer_;
};
void count_decode(uint32_t format);
void count_analysis();

// ---- surfaces -------------------------------------------------------------
// One surface as a picture: RGBA8 (tagged as the texture) or RGBA32F for
// formats that decode to float. Compressed formats decode through codecs.
Texture surface_image(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip);
// Rows [y0, y0 + rows) of one surface, decoded alone: the surface's bytes for
// those rows are cut out (whole block rows: y0 and rows multiples of the
// format's block height, except a last band that ends at the surface's
// bottom), so a large surface is never decoded whole. Volumes decode whole
// (y0 0, rows all of height × depth).
Texture surface_rows(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip, uint32_t y0,
                     uint32_t rows);
// The same, in the value space every measure of the pipeline uses (`compare`,
// encode's PSNR, the report's pictures, the normal-map rule): signed
// normalised formats (BC4/BC5_SNORM, R8G8_SNORM …) mapped from -1..1 to 0..1
// as `decode` exports them, so a SNORM texture and its PNG compare texel for
// texel and a full-scale error is 1 in either. Other formats as surface_image.
Texture measured_image(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip);
Texture measured_rows(Ops& ops, const Texture& t, uint32_t layer, uint32_t face, uint32_t mip, uint32_t y0,
                      uint32_t rows);
// One surface as a texture of its own; range errors name the option.
Texture single_surface(const Texture& t, uint32_t layer, uint32_t face, uint32_t mip);
// The first `n` levels (n ≤ desc.mips) of every layer and face.
Texture first_levels(const Texture& t, uint32_t n);
// The top level of every layer and face.
Texture top_level(const Texture& t);

// ---- decode ---------------------------------------------------------------
enum class DecodeTo { Auto, Rgba8, Rgba32f };
struct Decoded {
    Texture texture;
    std::string note; // what a viewer should know (BC4's red preview, …), or ""
};
// Every surface to RGBA8 (formats that fit 8 bits unsigned) or RGBA32F.
// Signed formats are mapped from -1..1 to 0..1 so a PNG and an image editor
// can hold them; BC4 decodes to (R, 0, 0, 1) and BC5 to (R, G, 0, 1): the
// preview shows what a shader sampling the stored channels sees.
Decoded decode(Ops& ops, const Texture& t, DecodeTo to = DecodeTo::Auto);

// ---- encode ---------------------------------------------------------------
// The original a re-export must match (`format: match`, `--like`).
struct MatchTarget {
    uint32_t format = 0;
    uint32_t mips = 1;
    uint32_t flags = 0;                      // AF_TEX_SRGB / AF_TEX_LINEAR of the original
    std::map<std::string, std::string> meta; // what its reader recorded (header kind, …)
    std::string path;                        // for messages
    Texture texture;                         // the original as read
};
MatchTarget read_match_target(Ops& ops, const std::string& path);
// Refuses (unsupported, naming `name`, the original and the counts) a texture
// holding fewer array layers or animation frames, cube faces or depth slices
// than the original it must match: `match` never drops a surface silently.
// `from_set`: `t` was assembled from surface pictures (`name` is the set's),
// whose missing members are named; otherwise it is one picture, and the
// message names the pictures that would rebuild the original. `levels`: the
// set's levels were pictures, and the missing ones are named with theirs.
void check_match_surfaces(const Texture& t, const MatchTarget& like, std::string_view name, bool from_set = false,
                          bool levels = false);
// Refuses a set whose levels were drawn (`name.mip<N>` pictures) when they are
// not as many as the original's, naming the missing or the extra pictures.
void check_match_levels(const Texture& t, const MatchTarget& like, std::string_view name);

// What `format` asks for. The words (auto, match, keep, a format name) are
// parsed once where the user wrote them: parse_encode_format.
enum class EncodeMode {
    Auto,  // by content (docs/auto-format.md)
    Match, // the original's format (`like`)
    Keep,  // the texture's own format
    Named, // `named`
};
struct EncodeFormat {
    EncodeMode mode = EncodeMode::Auto;
    NamedFormat named{}; // EncodeMode::Named
};
// auto, match, keep (any case) or a name format_names.hpp knows; anything
// else is a usage error that lists what may be typed.
EncodeFormat parse_encode_format(std::string_view text);

// What `mips` learned of the top level it filtered, handed on with its
// output so that an encode of that output neither reads nor analyses the
// level again: an action decodes its input once and analyses it once.
struct TopLevel {
    const uint8_t* of = nullptr; // the pixel data of the texture it describes (mips' output)
    // Level 0 of that texture as stored there, analysed; unset when it is
    // stored otherwise than it was analysed (float data kept as 16-bit).
    std::optional<Content> content;
    NormalMapVerdict verdict;
    bool describes(const Texture& t) const { return of && of == t.data.data(); }
};

struct EncodeRequest {
    EncodeFormat format{};
    Quality quality = Quality::Normal;
    std::string name;                               // input file name: the normal-map name tokens
    NormalMapMode normal_map = NormalMapMode::Auto; // the job's say (a `normal_maps:` pattern)
    std::string normal_map_why;                     // which pattern, for the report
    bool grey_in_red = false;                       // shader reads grey from red: auto may pick BC4
    const MatchTarget* like = nullptr;              // EncodeMode::Match
    bool from_set = false;                          // the input was assembled from surface pictures
    bool authored_mips = false;                     // … with its levels as pictures: `match` keeps them
    OptionMap codec_options;                        // handed to the codec (quality added)
    bool measure = false;                           // PSNR of the top level against the source
    const TopLevel* known_top = nullptr;            // mips' findings: used when they describe the source
};
struct Encoded {
    Texture texture;
    uint32_t format = 0;
    std::string why;                // "requested", "kept", the auto rule, "matches …"
    std::optional<double> psnr_rgb; // when measured
    // When measured and the source has alpha: colour weighted by the source's alpha (what a player sees).
    std::optional<double> psnr_rgb_alpha_weighted;
    // The normal-map rule's verdict when it was asked (auto, match), for
    // reports and convert's summary.
    std::optional<NormalMapVerdict> normal_map;
    // What the encode discarded that the source held (an alpha channel with
    // information in it, a colour channel, bit depth): one line each, for
    // warnings (docs/auto-format.md).
    std::vector<std::string> losses;
};
Encoded encode(Ops& ops, const Texture& t, const EncodeRequest& req);

// ---- normal maps seen as the shader sees them -----------------------------
// A two-channel normal map (BC5, RG formats: X and Y only) has its Z rebuilt
// as √(1 − x² − y²) before it is shown or compared: the one rule of the
// report's pictures and figures and of `compare`.
struct NormalZ {
    bool normal_map = false;        // either side is marked one, or the result stores X and Y only
    bool rebuild_reference = false; // the reference stores X and Y only
    bool rebuild_result = false;    // the result stores X and Y only
};
NormalZ normal_z(const Texture& reference, const Texture& result);
// Blue replaced by the Z that X and Y imply (0..1 encoded); per texel, so bands of rows may go one at a time.
Texture with_normal_z(const Texture& xy);

// ---- mips, resize, channels -----------------------------------------------
struct MipRequest {
    MipOptions options{};
    NormalMapMode normal_map = NormalMapMode::Auto; // auto: the texture's flag, the file name or the texels
    ColourTag colour = ColourTag::Keep;             // filter as sRGB (linear light) or linear
    std::string name{};                             // input file name (normal-map name tokens)
    std::string normal_map_why{};                   // why the job says yes or no (a pattern), for the report
};
// The chain from the top level of every layer and face, as RGBA8 or
// RGBA32F (existing mips are replaced). A detected normal map is filtered as
// vectors and tagged AF_TEX_NORMAL_MAP | AF_TEX_LINEAR (its alpha, if any,
// is filtered as plain data). `top`, when given, receives the decision and
// what was learned of the top level (it describes the texture returned).
Texture mips(Ops& ops, const Texture& t, const MipRequest& req, TopLevel* top = nullptr);

// The one rule (recognise_normal_map) on a texture as stored: its top level
// as every measure sees it (measured_image), analysed, unless `known` is that
// analysis already. What `info --normal-map`, encode's loss check (with or
// without mips, under any format) and the writers' loss checks all ask.
NormalMapVerdict normal_map_of(Ops& ops, const Texture& t, std::string_view name,
                               NormalMapMode mode = NormalMapMode::Auto, std::string_view why = "",
                               const Content* known = nullptr);

// "yes: <rule>" or "no: <rule>": a verdict as reports print it.
std::string verdict_text(const NormalMapVerdict& v);

// The top level of every layer and face resized (one level: run mips after).
Texture resize(Ops& ops, const Texture& t, uint32_t width, uint32_t height, const ResizeOptions& opt);

// Channel map of four letters from r g b a 0 1, on every surface.
Texture channels(Ops& ops, const Texture& t, const std::string& map);

// ---- extract ---------------------------------------------------------------
enum class ExtractWhat { Layers, Faces, Mips, Surfaces };
struct Piece {
    Texture texture;
    std::map<std::string, std::string> meta; // layer / face / mip / level
};
std::vector<Piece> extract(const Texture& t, ExtractWhat what);

// ---- surface sets: one picture per surface (docs/edit-formats.md) -----------
struct SurfaceIndex {
    uint32_t layer = 0, face = 0, slice = 0;
    uint32_t mip = 0; // named only when every level is a picture (mips as authored)
};
struct SurfacePicture {
    Texture texture; // one level (the top one unless every level is asked) of one layer, face or depth slice
    SurfaceIndex at;
};
// Every top-level surface of `t` as a texture of its own, layer → face → slice;
// mip levels below the top are left out (a rebuild under `match` makes them again).
// `levels` (and more than one level): every level of every surface instead, layer → face → level → slice,
// so hand-made levels can be edited and kept.
std::vector<SurfacePicture> split_surfaces(const Texture& t, bool levels = false);
// The part of a surface picture's name that says which surface it is: ".face3", ".layer2",
// ".layer2.face3", ".frame1" (`frames`: XTF/VTF animation frames), ".slice4"; "" for a texture of one surface.
// `levels`: the level follows, every one named (".mip0", ".face3.mip2").
std::string surface_part(const TextureDesc& d, const SurfaceIndex& at, bool frames, bool levels = false);

struct SetMember {
    std::string name; // the picture's file, for messages
    std::optional<uint32_t> layer, face, slice;
    bool frame = false; // its layer was named as a frame
    const Texture* texture = nullptr;
    std::optional<uint32_t> mip = std::nullopt; // its level, when the set's levels are pictures (mips as authored)
};
// One texture of the pictures of a set (`set`: its name, "env/sky.png"): a
// cubemap when faces are named, layers and depth slices as many as the
// highest index names; with levels named (`.mip<N>`), as many levels as the
// highest names, each kept as drawn. Throws naming the pictures when one is
// missing (a gap, a cube face, a level of any surface), two name one surface,
// they mix kinds of surface, their formats differ or a size is not its
// level's (level N of W×H is max(1, W >> N) × max(1, H >> N)).
Texture assemble(const std::vector<SetMember>& members, std::string_view set);

} // namespace af::texture
