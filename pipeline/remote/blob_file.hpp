// Blobs fetched from the cache live in files, not in memory: each arrives in an unlinked temporary file, hashed
// as it is written, and is handed out as a read-only mapping of that file. Memory then stays flat whatever the
// size of a blob, and nothing is left behind when the process dies (the file has no name).
#pragma once

#include "remote/http_types.hpp"
#include "remote/sha256.hpp"

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace af::remote {

// The bytes of one fetched blob; copies share them. Empty for the empty blob.
class Blob {
  public:
    Blob() = default;
    std::span<const uint8_t> bytes() const;
    size_t size() const { return bytes().size(); }
    bool empty() const { return size() == 0; }
    // Keeps the bytes alive for whoever holds a span of them without the Blob.
    std::shared_ptr<const void> owner() const { return mapping_; }
    bool operator==(const std::vector<uint8_t>& other) const;

  private:
    friend class BlobWriter;
    struct Mapping;
    std::shared_ptr<const Mapping> mapping_;
};

class BlobWriter final : public BodySink {
  public:
    // A temporary file in `dir` (empty: the system's temporary folder). Throws std::runtime_error naming `dir`.
    explicit BlobWriter(const std::string& dir);
    ~BlobWriter() override;
    BlobWriter(const BlobWriter&) = delete;
    BlobWriter& operator=(const BlobWriter&) = delete;

    void restart() override;
    bool write(std::span<const uint8_t> chunk) override;
    std::string why() const override { return why_; }

    int64_t size() const { return size_; }
    // The SHA-256 of what was written; ends the hash.
    std::string hex_digest() { return hash_.hex_digest(); }
    // The written bytes, mapped; the writer is spent. Throws std::runtime_error when the file cannot be mapped.
    Blob finish();

  private:
    int fd_ = -1;
    int64_t size_ = 0;
    Sha256 hash_;
    std::string why_;
};

} // namespace af::remote
