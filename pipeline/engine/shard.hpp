// --shard I/N: splitting one build over N machines or processes (a CI
// matrix, a Slurm job array) that share a remote cache. Each source file
// belongs to one shard, and every action of the chain it starts (decode →
// encode → …) runs in that shard, so no shard waits for another; gathers run
// in the build without --shard, which finds everything else in the cache.
// The assignment is deterministic (the same tree gives every machine the same
// answer) and balanced by bytes rather than by count: a tree with a few huge
// textures does not leave one shard with all of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace af::engine {

struct ShardSpec {
    int index = 0, count = 0; // count 0: not sharded
};

// "I/N" with 0 ≤ I < N ≤ 10000. Throws std::invalid_argument.
ShardSpec parse_shard(std::string_view text);

// Source (relative path) → shard. Largest first, each to the shard holding
// the fewest bytes so far (ties: the lower shard); equal sizes in path order.
std::unordered_map<std::string, int> assign_shards(std::vector<std::pair<std::string, uint64_t>> sources, int count);

// A source the assignment did not list (found later, e.g. by a `needs` job's
// glob): by a stable hash of its path.
int shard_by_name(const std::string& source, int count);

} // namespace af::engine
