// A host services table for plugin unit tests, so a test calls a container,
// codec, stage or command through the C ABI without the real host:
//
//   af::sdk::testing::FakeHost host;
//   host.use_codec(my_codec);                 // convert() decodes/encodes through it
//   REQUIRE(container->read(host, &in, nullptr, &tex, &err) == AF_OK);
//   CHECK(host.live_allocations() == 2);      // data + palette, not yet freed
//
// What it does: alloc/free with accounting (and an optional size limit), log
// capture, a cancel flag (optionally raised after N polls), parallel_for run
// serially in grain-sized pieces (or on N std::threads) that stops once
// cancelled as the real host does, and convert between RGBA8, RGBA8 sRGB and
// RGBA32F plus through one codec under test. resample and write_texture fail
// as unsupported unless a test wires them (on_resample, on_write_texture,
// use_container). Any service can be replaced through the on_* hooks.
//
// The ABI's callbacks carry no context pointer, so the table reaches the
// FakeHost most recently constructed on the calling thread (a nested one
// takes over until it is destroyed). Tests running on several threads at
// once each get their own, and the threads of its parallel_for reach it too;
// a thread the plugin starts itself reaches the one constructed last on any
// thread.
#pragma once

#include "assetforge/error.hpp"
#include "assetforge/formats.hpp"
#include "assetforge/plugin_abi.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

namespace af::sdk::testing {

class FakeHost {
    // First in the class: the accessors below deduce their return types from it.
    template <class F> auto locked(F&& f) const {
        std::lock_guard lock(mutex_);
        return f();
    }

  public:
    struct LogLine {
        int32_t level;
        std::string message;
    };
    using ConvertFn = std::function<af_status(const af_surface*, af_surface*, const af_options*, af_error*)>;
    using ResampleFn = std::function<af_status(const af_surface*, af_surface*, const af_resample_options*, af_error*)>;
    using WriteTextureFn =
        std::function<af_status(const char*, const af_texture*, const af_options*, af_sink*, af_error*)>;

    // Hooks replacing the built-in behaviour of a service when set.
    ConvertFn on_convert;
    ResampleFn on_resample;
    WriteTextureFn on_write_texture;

    FakeHost() : previous_(current_.exchange(this)), previous_here_(std::exchange(here_, this)) {
        table_.struct_size = sizeof table_;
        table_.api_major = AF_API_MAJOR;
        table_.api_minor = AF_API_MINOR;
        table_.host_version = "fake-host";
        table_.alloc = [](uint64_t n) { return self().alloc(n); };
        table_.free = [](void* p) { self().release(p); };
        table_.log = [](int32_t level, const char* m) { self().log(level, m); };
        table_.cancelled = [] { return self().poll_cancel(); };
        table_.progress = [](uint64_t done, uint64_t total) {
            self().progress_done_ = done;
            self().progress_total_ = total;
        };
        table_.parallel_for = [](uint64_t b, uint64_t e, uint64_t g, af_range_fn fn, void* ctx) {
            self().parallel_for(b, e, g, fn, ctx);
        };
        table_.convert = [](const af_surface* s, af_surface* d, const af_options* o, af_error* e) {
            return self().convert(s, d, o, e);
        };
        table_.resample = [](const af_surface* s, af_surface* d, const af_resample_options* o, af_error* e) {
            FakeHost& h = self();
            if (h.on_resample) return h.on_resample(s, d, o, e);
            return refuse(e, "the fake host does not resample (set on_resample)");
        };
        table_.write_texture = [](const char* c, const af_texture* t, const af_options* o, af_sink* s, af_error* e) {
            return self().write_texture(c, t, o, s, e);
        };
    }
    ~FakeHost() {
        here_ = previous_here_;
        FakeHost* self = this;
        current_.compare_exchange_strong(self, previous_);
    }
    FakeHost(const FakeHost&) = delete;
    FakeHost& operator=(const FakeHost&) = delete;

    const af_host* get() const { return &table_; }
    operator const af_host*() const { return &table_; }
    // For limits (max_dimension, …) or to remove a service (set it to NULL).
    af_host& table() { return table_; }

    // ---- allocation ----
    // alloc() of more than `bytes` returns NULL, as the host's per-allocation limit does.
    void set_alloc_limit(uint64_t bytes) {
        alloc_limit_ = bytes;
        table_.max_texture_bytes = bytes;
    }
    uint64_t live_allocations() const {
        return locked([&] { return uint64_t(live_.size()); });
    }
    uint64_t live_bytes() const {
        return locked([&] { return live_bytes_; });
    }
    uint64_t allocations() const {
        return locked([&] { return allocations_; });
    }
    uint64_t allocated_bytes() const {
        return locked([&] { return allocated_bytes_; });
    }
    uint64_t peak_bytes() const {
        return locked([&] { return peak_bytes_; });
    }
    uint64_t refused_allocations() const {
        return locked([&] { return refused_; });
    }
    // free() of a pointer this host did not hand out (or freed twice).
    uint64_t bad_frees() const {
        return locked([&] { return bad_frees_; });
    }
    void reset_counters() {
        std::lock_guard lock(mutex_);
        allocations_ = allocated_bytes_ = refused_ = bad_frees_ = 0;
        peak_bytes_ = live_bytes_;
    }

    // ---- log ----
    std::vector<LogLine> logs() const {
        return locked([&] { return logs_; });
    }
    bool logged(std::string_view needle) const {
        return locked([&] {
            return std::any_of(logs_.begin(), logs_.end(),
                               [&](const LogLine& l) { return l.message.find(needle) != std::string::npos; });
        });
    }

    // ---- cancellation ----
    void cancel(bool on = true) { cancelled_.store(on); }
    // cancelled() starts answering 1 at its n-th call (n >= 1), to stop a loop half way.
    void cancel_after_polls(uint64_t n) { cancel_after_ = n; }
    uint64_t cancel_polls() const { return polls_.load(); }

    // ---- parallel_for ----
    // 0 or 1: serial. More: that many std::threads share the grain-sized pieces.
    void set_threads(unsigned n) { threads_ = n; }
    uint64_t parallel_calls() const { return parallel_calls_.load(); }
    uint64_t progress_done() const { return progress_done_; }
    uint64_t progress_total() const { return progress_total_; }

    // ---- convert / write_texture wiring ----
    // convert() decodes surfaces of the codec's formats and encodes into them.
    void use_codec(const af_codec* codec) { codec_ = codec; }
    // write_texture() with this container's name calls its write().
    void use_container(const af_container* c) { containers_.push_back(c); }
    uint64_t convert_calls() const { return convert_calls_.load(); }

  private:
    static FakeHost& self() {
        FakeHost* h = here_ ? here_ : current_.load();
        if (!h) std::abort(); // a plugin kept the table past the FakeHost's life
        return *h;
    }

    void* alloc(uint64_t n) {
        std::lock_guard lock(mutex_);
        if (alloc_limit_ && n > alloc_limit_) {
            ++refused_;
            return nullptr;
        }
        void* p = std::malloc(n ? n : 1);
        if (!p) return nullptr;
        live_[p] = n;
        ++allocations_;
        allocated_bytes_ += n;
        live_bytes_ += n;
        peak_bytes_ = std::max(peak_bytes_, live_bytes_);
        return p;
    }

    void release(void* p) {
        if (!p) return;
        std::lock_guard lock(mutex_);
        auto it = live_.find(p);
        if (it == live_.end()) {
            ++bad_frees_; // never hand it to free(): a double free would crash the test run
            return;
        }
        live_bytes_ -= it->second;
        live_.erase(it);
        std::free(p);
    }

    void log(int32_t level, const char* m) {
        std::lock_guard lock(mutex_);
        logs_.push_back({level, m ? m : ""});
    }

    int32_t poll_cancel() {
        const uint64_t n = ++polls_;
        return cancelled_.load() || (cancel_after_ && n >= cancel_after_) ? 1 : 0;
    }

    void parallel_for(uint64_t begin, uint64_t end, uint64_t grain, af_range_fn fn, void* ctx) {
        ++parallel_calls_;
        if (begin >= end) return;
        grain = std::max<uint64_t>(grain, 1);
        const uint64_t pieces = (end - begin + grain - 1) / grain;
        std::atomic<uint64_t> next{0};
        auto work = [&] {
            // The plugin's callbacks on this thread reach this host, until the work is done.
            struct Here {
                FakeHost* outer;
                ~Here() { here_ = outer; }
            } here{std::exchange(here_, this)};
            for (uint64_t i; (i = next++) < pieces;) {
                if (poll_cancel()) return;
                const uint64_t b = begin + i * grain;
                fn(ctx, b, std::min(end, b + grain));
            }
        };
        if (threads_ <= 1) {
            work();
            return;
        }
        std::vector<std::thread> pool;
        for (unsigned t = 0; t < threads_; ++t) pool.emplace_back(work);
        for (auto& t : pool) t.join();
    }

    static af_status refuse(af_error* e, std::string_view msg, af_status st = AF_ERR_UNSUPPORTED) {
        set_error(e, st, AF_NO_OFFSET, msg);
        return st;
    }

    bool codec_handles(uint32_t format) const {
        return codec_ && std::find(codec_->formats, codec_->formats + codec_->format_count, format) !=
                             codec_->formats + codec_->format_count;
    }

    static bool is_rgba8(uint32_t f) { return f == FMT_R8G8B8A8_UNORM || f == FMT_R8G8B8A8_UNORM_SRGB; }

    af_status convert(const af_surface* src, af_surface* dst, const af_options* opts, af_error* e) {
        ++convert_calls_;
        if (on_convert) return on_convert(src, dst, opts, e);
        if (!src || !dst) return refuse(e, "convert: NULL surface", AF_ERR_USAGE);
        if (src->width != dst->width || src->height != dst->height ||
            std::max(src->depth, 1u) != std::max(dst->depth, 1u))
            return refuse(e, "convert: source and destination sizes differ", AF_ERR_USAGE);
        if (codec_handles(src->format) && codec_->decode) return codec_->decode(&table_, src, dst, opts, e);
        if (codec_handles(dst->format) && codec_->encode) return codec_->encode(&table_, src, dst, opts, e);
        const uint64_t texels = uint64_t(src->width) * src->height * std::max(src->depth, 1u);
        const bool same = src->format == dst->format || (is_rgba8(src->format) && is_rgba8(dst->format));
        if (same) {
            const uint64_t n = surface_bytes(src->format, src->width, src->height, std::max(src->depth, 1u));
            if (src->size < n || dst->size < n) return refuse(e, "convert: buffer too small", AF_ERR_USAGE);
            std::memcpy(dst->data, src->data, n);
            return AF_OK;
        }
        if (is_rgba8(src->format) && dst->format == FMT_R32G32B32A32_FLOAT) {
            if (src->size < texels * 4 || dst->size < texels * 16) return refuse(e, "convert: buffer too small");
            auto* out = reinterpret_cast<float*>(dst->data);
            for (uint64_t i = 0; i < texels * 4; ++i) out[i] = src->data[i] / 255.0f;
            return AF_OK;
        }
        if (src->format == FMT_R32G32B32A32_FLOAT && is_rgba8(dst->format)) {
            if (src->size < texels * 16 || dst->size < texels * 4) return refuse(e, "convert: buffer too small");
            const auto* in = reinterpret_cast<const float*>(src->data);
            for (uint64_t i = 0; i < texels * 4; ++i) {
                const float v = std::isnan(in[i]) ? 0.0f : std::clamp(in[i], 0.0f, 1.0f);
                dst->data[i] = uint8_t(std::lround(v * 255.0f));
            }
            return AF_OK;
        }
        return refuse(e, format("the fake host cannot convert format %u to %u (use_codec or on_convert)", src->format,
                                dst->format));
    }

    af_status write_texture(const char* name, const af_texture* t, const af_options* o, af_sink* s, af_error* e) {
        if (on_write_texture) return on_write_texture(name, t, o, s, e);
        for (const af_container* c : containers_)
            if (name && c->name && std::string_view(name) == c->name && c->write) return c->write(&table_, t, o, s, e);
        return refuse(e, format("the fake host has no container '%s' (use_container or on_write_texture)",
                                name ? name : "(null)"));
    }

    inline static std::atomic<FakeHost*> current_{nullptr};
    inline static thread_local FakeHost* here_ = nullptr;
    FakeHost* previous_;
    FakeHost* previous_here_;
    af_host table_{};

    mutable std::mutex mutex_;
    std::unordered_map<void*, uint64_t> live_;
    uint64_t live_bytes_ = 0, peak_bytes_ = 0, allocations_ = 0, allocated_bytes_ = 0, refused_ = 0, bad_frees_ = 0;
    uint64_t alloc_limit_ = 0;
    std::vector<LogLine> logs_;

    std::atomic<bool> cancelled_{false};
    std::atomic<uint64_t> polls_{0};
    uint64_t cancel_after_ = 0;

    unsigned threads_ = 0;
    std::atomic<uint64_t> parallel_calls_{0}, convert_calls_{0};
    uint64_t progress_done_ = 0, progress_total_ = 0;

    const af_codec* codec_ = nullptr;
    std::vector<const af_container*> containers_;
};

} // namespace af::sdk::testing
