// What makes an entry unsafe or unusable, whoever wrote it: the server is not trusted, so a path that would
// escape the output directory or a digest that cannot name a blob turns the entry into a miss.
#pragma once

#include "remote/cache_entry.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace af::remote {

struct EntryProblem {
    std::string kind;   // stable, for reporting each kind of problem once
    std::string detail; // for a person
};

// Why a path is not a plain relative '/'-separated path inside the output tree; nullopt when it is.
std::optional<std::string> path_problem(std::string_view path);

std::optional<EntryProblem> check_entry(const CacheEntry& entry, int64_t max_blob_bytes);

} // namespace af::remote
