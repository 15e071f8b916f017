// Reading a pipeline file or an include. Only a regular file of at most
// kMaxConfigBytes is read: a device (/dev/zero), a pipe or a huge file would
// otherwise be read until memory runs out. The YAML must not give a key twice
// in one map (yaml-cpp keeps both pairs, and lookups would see only one).
#pragma once

#include "base/config_error.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace YAML {
class Node; // yaml-cpp, included by the one file that parses
}

namespace af::load {

constexpr uint64_t kMaxConfigBytes = 16u << 20;

// Throws ConfigError at `at`, naming `file` unless `at` is in it.
std::string read_config_file(const std::filesystem::path& file, const base::SourcePos& at);

// Throws ConfigError on a syntax error or a key given twice in one map.
YAML::Node parse_config_yaml(const std::string& text, const std::string& file);

} // namespace af::load
