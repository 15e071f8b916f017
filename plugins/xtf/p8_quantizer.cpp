#include "p8_quantizer.hpp"

#include "assetforge/plugin.hpp"

#include <libimagequant.h>

#include <cstring>
#include <memory>
#include <unordered_map>

namespace af::xtf {

namespace {

struct AttrFree {
    void operator()(liq_attr* p) const { liq_attr_destroy(p); }
};
struct ImageFree {
    void operator()(liq_image* p) const { liq_image_destroy(p); }
};
struct HistFree {
    void operator()(liq_histogram* p) const { liq_histogram_destroy(p); }
};
struct ResultFree {
    void operator()(liq_result* p) const { liq_result_destroy(p); }
};

const Texture& rgba8(const Texture& in, Texture& storage) {
    if (!is_float(in)) return in;
    storage = to_rgba8(in);
    return storage;
}

void check_target(const Texture& from, const ImageView& to) {
    if (to.format != FMT_P8 || to.size != texels(from))
        sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET,
                  sdk::format("P8 remap: %ux%u texels into a surface of %llu bytes", from.desc.width, from.desc.height,
                              (unsigned long long)to.size));
}

void check(liq_error e, const char* what) {
    if (e != LIQ_OK)
        sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, sdk::format("libimagequant: %s failed (error %d)", what, int(e)));
}

} // namespace

void quantize_frame(const std::vector<const Texture*>& palette_sources, const std::vector<RemapTarget>& targets,
                    bool dither, uint8_t* palette_rgba) {
    std::unique_ptr<liq_attr, AttrFree> attr(liq_attr_create());
    if (!attr) sdk::fail(AF_ERR_NO_MEMORY, AF_NO_OFFSET, "libimagequant: cannot create attributes");
    check(liq_set_max_colors(attr.get(), 256), "set_max_colors");
    std::unique_ptr<liq_histogram, HistFree> hist(liq_histogram_create(attr.get()));
    // liq_image borrows the pixels: keep the RGBA8 copies alive until remapping ends.
    std::vector<Texture> keep(palette_sources.size() + targets.size());
    auto make = [&](const Texture& src, size_t slot) {
        const Texture& px = rgba8(src, keep[slot]);
        liq_image* li = liq_image_create_rgba(attr.get(), px.data.data(), int(px.desc.width), int(px.desc.height), 0);
        if (!li) sdk::fail(AF_ERR_INTERNAL, AF_NO_OFFSET, "libimagequant: cannot wrap an image");
        return std::unique_ptr<liq_image, ImageFree>(li);
    };
    for (size_t i = 0; i < palette_sources.size(); ++i) {
        auto li = make(*palette_sources[i], i);
        check(liq_histogram_add_image(hist.get(), attr.get(), li.get()), "histogram_add_image");
    }
    liq_result* raw = nullptr;
    check(liq_histogram_quantize(hist.get(), attr.get(), &raw), "histogram_quantize");
    std::unique_ptr<liq_result, ResultFree> result(raw);
    check(liq_set_dithering_level(result.get(), dither ? 1.0f : 0.0f), "set_dithering_level");

    for (size_t i = 0; i < targets.size(); ++i) {
        const RemapTarget& t = targets[i];
        check_target(*t.from, t.to);
        auto li = make(*t.from, palette_sources.size() + i);
        check(liq_write_remapped_image(result.get(), li.get(), t.to.data, t.to.size), "write_remapped_image");
    }
    // The palette is final only after remapping (libimagequant refines it there).
    const liq_palette* pal = liq_get_palette(result.get());
    std::memset(palette_rgba, 0, 1024);
    for (unsigned i = 0; i < pal->count && i < 256; ++i) {
        palette_rgba[i * 4] = pal->entries[i].r;
        palette_rgba[i * 4 + 1] = pal->entries[i].g;
        palette_rgba[i * 4 + 2] = pal->entries[i].b;
        palette_rgba[i * 4 + 3] = pal->entries[i].a;
    }
}

void remap_to_palette(const Texture& img, const uint8_t* pal, const ImageView& to) {
    check_target(img, to);
    Texture storage;
    const Texture& px = rgba8(img, storage);
    // Re-saved P8 is all exact palette colours: look those up (first entry
    // wins, as the nearest search below would pick) instead of 256 distances.
    std::unordered_map<uint32_t, uint8_t> exact;
    for (int i = 255; i >= 0; --i) {
        uint32_t key;
        std::memcpy(&key, pal + i * 4, 4);
        exact[key] = uint8_t(i);
    }
    uint8_t* out = to.data;
    for (size_t t = 0; t < texels(px); ++t) {
        const uint8_t* p = &px.data[t * 4];
        uint32_t key;
        std::memcpy(&key, p, 4);
        if (auto it = exact.find(key); it != exact.end()) {
            out[t] = it->second;
            continue;
        }
        int best = 0;
        long best_d = -1;
        for (int i = 0; i < 256; ++i) {
            long d = 0;
            for (int c = 0; c < 4; ++c) {
                long v = long(p[c]) - pal[i * 4 + c];
                d += v * v;
            }
            if (best_d < 0 || d < best_d) {
                best_d = d;
                best = i;
            }
        }
        out[t] = uint8_t(best);
    }
}

} // namespace af::xtf
