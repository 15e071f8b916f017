// Read-only memory map of a whole file; pages are read on demand, never all at once.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>

namespace af {

class MappedFile {
public:
    MappedFile() = default;
    explicit MappedFile(const std::filesystem::path& path); // throws af::sdk::Error(AF_ERR_IO)
    ~MappedFile();
    MappedFile(MappedFile&& o) noexcept;
    MappedFile& operator=(MappedFile&& o) noexcept;
    MappedFile(const MappedFile&) = delete;
    MappedFile& operator=(const MappedFile&) = delete;

    const uint8_t* data() const { return data_; }
    uint64_t size() const { return size_; }
    std::span<const uint8_t> bytes() const { return {data_, size_}; }

private:
    const uint8_t* data_ = nullptr;
    uint64_t size_ = 0;
    void* map_ = nullptr;
};

} // namespace af
