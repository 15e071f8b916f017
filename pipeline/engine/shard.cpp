#include "engine/shard.hpp"

#include "core/content_hash.hpp"

#include <algorithm>
#include <charconv>
#include <queue>
#include <stdexcept>

namespace af::engine {

ShardSpec parse_shard(std::string_view text) {
    const auto slash = text.find('/');
    ShardSpec s;
    auto number = [](std::string_view t, int& v) {
        auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
        return !t.empty() && ec == std::errc() && p == t.data() + t.size();
    };
    if (slash == std::string_view::npos || !number(text.substr(0, slash), s.index) ||
        !number(text.substr(slash + 1), s.count) || s.count < 1 || s.count > 10000 || s.index < 0 || s.index >= s.count)
        throw std::invalid_argument("--shard expects I/N with 0 <= I < N (e.g. 0/4), got '" + std::string(text) + "'");
    return s;
}

std::unordered_map<std::string, int> assign_shards(std::vector<std::pair<std::string, uint64_t>> sources, int count) {
    std::sort(sources.begin(), sources.end(), [](const auto& a, const auto& b) {
        return a.second != b.second ? a.second > b.second : a.first < b.first;
    });
    // (bytes so far, shard): the top is the lightest shard, the lower index on ties.
    using Load = std::pair<uint64_t, int>;
    std::priority_queue<Load, std::vector<Load>, std::greater<Load>> lightest;
    for (int i = 0; i < std::max(count, 1); ++i) lightest.push({0, i});
    std::unordered_map<std::string, int> shard;
    shard.reserve(sources.size());
    for (const auto& [name, bytes] : sources) {
        if (shard.count(name)) continue;
        auto [load, s] = lightest.top();
        lightest.pop();
        // +1: empty files still count, or they would all land in one shard.
        lightest.push({load + bytes + 1, s});
        shard.emplace(name, s);
    }
    return shard;
}

int shard_by_name(const std::string& source, int count) {
    const Hash128 h = hash_bytes(std::span(reinterpret_cast<const uint8_t*>(source.data()), source.size()));
    return int(h.lo % uint64_t(std::max(count, 1)));
}

} // namespace af::engine
