#include "host/read_allowance.hpp"

#include "assetforge/formats.hpp"

#include <algorithm>
#include <cstdio>

namespace af::host {
namespace {

thread_local AllowanceScope* t_scope = nullptr;

uint32_t at_least_1(uint32_t v) { return v ? v : 1; }

// Saturating: a hostile header's product must not wrap to a small allowance.
uint64_t mul(uint64_t a, uint64_t b) { return a && b > UINT64_MAX / a ? UINT64_MAX : a * b; }
uint64_t add(uint64_t a, uint64_t b) { return b > UINT64_MAX - a ? UINT64_MAX : a + b; }

std::string size_text(uint64_t bytes) {
    char buf[32];
    if (bytes >= (1ull << 30))
        std::snprintf(buf, sizeof buf, "%.1f GiB", double(bytes) / double(1ull << 30));
    else if (bytes >= (1ull << 20))
        std::snprintf(buf, sizeof buf, "%.1f MiB", double(bytes) / double(1ull << 20));
    else
        std::snprintf(buf, sizeof buf, "%llu bytes", (unsigned long long)bytes);
    return buf;
}

} // namespace

uint64_t declared_bytes(const af_dims& d) {
    const uint32_t w = at_least_1(d.width), h = at_least_1(d.height), depth = at_least_1(d.depth);
    const uint32_t mips = std::min<uint32_t>(at_least_1(d.mip_count), 32);
    const FormatInfo* f = format_info(d.format);
    uint64_t per_face = 0;
    for (uint32_t m = 0; m < mips; ++m) {
        const uint32_t mw = std::max(1u, w >> m), mh = std::max(1u, h >> m), md = std::max(1u, depth >> m);
        per_face = add(per_face, f ? surface_bytes(d.format, mw, mh, md) : mul(mul(mul(mw, mh), md), 16));
    }
    const uint64_t surfaces = mul(at_least_1(d.layer_count), at_least_1(d.face_count));
    uint64_t bytes = mul(per_face, surfaces);
    if (d.format == FMT_P8) bytes = add(bytes, mul(at_least_1(d.layer_count), 1024));
    return bytes;
}

uint64_t read_allowance(const af_dims& d) {
    const uint64_t b = declared_bytes(d);
    return add(add(b, b / 16), 1u << 20);
}

std::string dims_text(const af_dims& d) {
    const FormatInfo* f = format_info(d.format);
    std::string s = std::to_string(at_least_1(d.width)) + "x" + std::to_string(at_least_1(d.height));
    if (d.depth > 1) s += "x" + std::to_string(d.depth);
    s += " " + (f ? std::string(f->name) : std::string("texture"));
    if (d.face_count > 1) s += ", " + std::to_string(d.face_count) + " faces";
    if (d.layer_count > 1) s += ", " + std::to_string(d.layer_count) + " layers";
    if (d.mip_count > 1) s += ", " + std::to_string(d.mip_count) + " mips";
    return s;
}

std::string over_allowance_text(const std::string& plugin, const af_dims& d, uint64_t allowance, uint64_t asked) {
    return "plugin '" + plugin + "' asked af_host.alloc for " + size_text(asked) +
           " in read, past what its dims declared for this file (" + dims_text(d) + ": at most " +
           size_text(allowance) + " in all); the read is refused";
}

AllowanceScope::AllowanceScope(uint64_t limit) : limit_(limit), previous_(t_scope) { t_scope = this; }
AllowanceScope::~AllowanceScope() { t_scope = previous_; }

AllowanceScope* current_allowance() { return t_scope; }

AllowanceShare::AllowanceShare(AllowanceScope* scope) : previous_(t_scope) { t_scope = scope; }
AllowanceShare::~AllowanceShare() { t_scope = previous_; }

bool allowance_take(uint64_t size, uint64_t asked) {
    AllowanceScope* s = t_scope;
    if (!s) return true;
    uint64_t held = s->held_.load();
    do {
        if (size > s->limit_ || held > s->limit_ - size) {
            uint64_t none = 0;
            s->refused_.compare_exchange_strong(none, asked ? asked : size ? size : 1);
            return false;
        }
    } while (!s->held_.compare_exchange_weak(held, held + size));
    return true;
}

void allowance_give(uint64_t size) {
    AllowanceScope* s = t_scope;
    if (!s) return;
    uint64_t held = s->held_.load();
    while (!s->held_.compare_exchange_weak(held, held > size ? held - size : 0)) {
    }
}

} // namespace af::host
