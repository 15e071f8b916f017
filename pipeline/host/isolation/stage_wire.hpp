// A plugin stage's call on the wire. The host sends one Op::Stage message: the stage's index in its plugin, and
// one sealed memfd (or, up to kInlineBytes, the message itself) holding everything else (the parameters, base_dir, each
// input item's name, metadata and description, then all of the items' bytes), so a gather of thousands of items is
// still one message and one descriptor. The worker answers with one Op::Emit message per item the stage emits (see
// stage_replies.hpp), then the Op::Reply with the stage's status.
#pragma once

#include "assetforge/plugin_abi.h"
#include "host/isolation/texture_wire.hpp"
#include "host/isolation/wire.hpp"

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

namespace af::host::isolation {

// What an emitted item or an input item holds. An emitted item's bytes (texture data and palette) cross as memory
// files, one each, or, up to kInlineBytes in all, inside its message after its description (the *Inline kinds).
enum class ItemKind : uint32_t { Bytes = 0, Texture = 1, Empty = 2, BytesInline = 3, TextureInline = 4 };

// Host: fills `body` and returns the memfd it refers to (the caller closes it), or -1 when no memory file could
// be made for it. A call of kInlineBytes or less travels inside `body` instead: kInlineCall, and no descriptor.
constexpr int kInlineCall = -2;
int put_stage_call(Writer& body, uint32_t stage_index, const af_stage_io* io, const af_options* params);

// Worker: the call as the stage sees it. Everything points into this object (and its mapping of the memfd).
class StageCall {
  public:
    // Throws std::runtime_error when the request does not hold together.
    StageCall(Reader& body, const std::vector<int>& fds);
    ~StageCall();
    StageCall(const StageCall&) = delete;
    StageCall& operator=(const StageCall&) = delete;

    uint32_t stage_index() const { return index_; }
    af_options params() const { return params_.options(); }
    const char* base_dir() const { return base_dir_.c_str(); }
    const af_item* const* inputs() const { return pointers_.data(); }
    uint32_t input_count() const { return uint32_t(pointers_.size()); }

  private:
    struct Entry {
        std::string name;
        KvStore meta, texture_meta;
        af_texture texture{};
        af_item item{};
    };
    void read_item(Reader& r, Entry& e);
    const uint8_t* bulk_at(uint64_t offset, uint64_t size) const;
    const uint8_t* base() const { return map_ ? static_cast<const uint8_t*>(map_) : inline_.data(); }

    uint32_t index_ = 0;
    void* map_ = nullptr;
    std::vector<uint8_t> inline_; // the call's bytes when they came inside the message
    uint64_t size_ = 0, manifest_ = 0;
    KvStore params_;
    std::string base_dir_;
    std::deque<Entry> entries_;
    std::vector<const af_item*> pointers_;
};

} // namespace af::host::isolation
