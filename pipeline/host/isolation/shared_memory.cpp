#include "host/isolation/shared_memory.hpp"

#include "host/isolation/wire.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <mutex>
#include <unordered_map>

namespace af::host::isolation {
namespace {

std::mutex g_mutex;
std::unordered_map<void*, uint64_t>& mappings() {
    static std::unordered_map<void*, uint64_t> m;
    return m;
}

} // namespace

void* adopt_shared(int fd, uint64_t size) {
    void* p = map_frozen(fd, size);
    ::close(fd);
    if (!p) return nullptr;
    std::lock_guard lock(g_mutex);
    mappings()[p] = size ? size : 1;
    return p;
}

bool release_shared(void* p) {
    if (!p) return false;
    uint64_t size;
    {
        std::lock_guard lock(g_mutex);
        auto it = mappings().find(p);
        if (it == mappings().end()) return false;
        size = it->second;
        mappings().erase(it);
    }
    ::munmap(p, size);
    return true;
}

} // namespace af::host::isolation
