// Outputs appear complete or not at all: data goes to a temporary file in the
// target directory, is flushed, and is renamed over the target on commit.
#pragma once

#include <cstdint>
#include <filesystem>
#include <span>
#include <string>

namespace af {

class AtomicFile {
public:
    explicit AtomicFile(std::filesystem::path target);
    ~AtomicFile(); // removes the temporary if commit() was not reached
    AtomicFile(const AtomicFile&) = delete;
    AtomicFile& operator=(const AtomicFile&) = delete;

    void write(const void* data, uint64_t size);
    void commit();
    const std::filesystem::path& target() const { return target_; }

private:
    std::filesystem::path target_, temp_;
    int fd_ = -1;
};

void write_file_atomic(const std::filesystem::path& path, std::span<const uint8_t> data);
void write_file_atomic(const std::filesystem::path& path, const std::string& text);

// Prefix of temporaries, so cleanup and the engine can recognise them.
inline constexpr const char* kTempPrefix = ".af-tmp-";

} // namespace af
