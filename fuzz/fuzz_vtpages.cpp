// `.pages` reader on arbitrary bytes: open, header check, selftest (census),
// tree walk, page lookups, page reports with plane headers, DXT pixels,
// occupancy map and cover masks. Each gives a result or an af::sdk::Error.
// A file that passes selftest must re-emit byte for byte through the writer's
// Layout, and its compacted form must pass selftest again.
#include "fuzz_host.hpp"

#include "page_images.hpp"
#include "page_pixels.hpp"
#include "page_report.hpp"
#include "pages_census.hpp"
#include "pages_reader.hpp"
#include "pages_writer.hpp"

#include "assetforge/plugin.hpp"

#include <nlohmann/json.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

using namespace af::vtpages;

void require(bool fact) {
    if (!fact) __builtin_trap();
}

template <class Fn> void quietly(Fn&& fn) {
    try {
        fn();
    } catch (const af::sdk::Error&) {
    }
}

constexpr int kMaxPixelPages = 2; // DXT decodes are 128×128 × 3 surfaces each

void per_page(const PagesFile& f) {
    int pixel_pages = 0;
    walk_tree(f, [&](const WalkStep& s) {
        (void)walk_line(s.page);
        (void)page_json<nlohmann::json>(f, s.page, true);
        if (s.page.node.compression == kCompDxt && pixel_pages < kMaxPixelPages) {
            ++pixel_pages;
            quietly([&] { (void)page_pixels(fuzzhost::host(), f, s.page); });
        }
        if (s.page.has_sub && s.page.sub.has_cover() && pixel_pages < kMaxPixelPages) {
            ++pixel_pages;
            quietly([&] {
                const PayloadLayout l = payload_layout(s.page.sub);
                (void)cover_png(fuzzhost::host(), f.bytes(s.page.payload_offset() + l.cover_offset, l.cover_size),
                                BitOrder::MsbFirst);
            });
        }
    });
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::span<const uint8_t> bytes(data, size);
    try {
        PagesFile f(bytes);
        (void)f.header_problems();
        (void)header_json<nlohmann::json>(f);
        // Lookups anywhere on the grid, including keys off it.
        for (int i = 0; i + 6 <= int(std::min<size_t>(size, 60)); i += 6) {
            PageKey k{uint16_t(data[i] % 16), uint16_t(data[i + 1] | data[i + 2] << 8),
                      uint16_t(data[i + 3] | data[i + 4] << 8)};
            quietly([&] { (void)f.find(k); });
        }
        quietly([&] { per_page(f); });
        // Occupancy maps of the top levels only: the finest is up to 2048² cells.
        for (int level = f.levels() - 1; level >= 0 && (f.across() >> level) <= 64; --level)
            quietly([&] { (void)occupancy_map(f, level); });

        quietly([&] { (void)take_census(f, false); });
        Census census;
        try {
            census = take_census(f, true);
        } catch (const af::sdk::Error&) {
            return 0;
        }
        (void)census_json<nlohmann::json>(census);
        (void)selftest_line("fuzz", census);
        require(census.used + census.slack == census.file_size && census.file_size == size);

        // Selftest passed, so the writer must take the file: the Layout must
        // reproduce it exactly, and its compacted form must pass selftest.
        try {
            Layout layout = layout_of(f);
            std::vector<uint8_t> again = emit_to_memory(layout);
            require(again.size() == size && std::memcmp(again.data(), data, size) == 0);
            compact(layout);
            std::vector<uint8_t> small = emit_to_memory(layout);
            PagesFile g(small);
            (void)take_census(g, true);
        } catch (const af::sdk::Error&) {
            __builtin_trap();
        }
    } catch (const af::sdk::Error&) {
    }
    return 0;
}
