#include "engine/run_marker.hpp"

#include "assetforge/atomic_file.hpp"

#include <algorithm>
#include <cerrno>
#include <csignal>
#include <fstream>
#include <unistd.h>

namespace af::engine {
namespace fs = std::filesystem;

RunMarker::RunMarker(const fs::path& state_dir) : file_(state_dir / "running") {
    std::error_code ec;
    if (fs::exists(file_, ec)) {
        long pid = 0;
        std::ifstream(file_) >> pid;
        // A live pid that is not ours: another build is running on this tree
        // right now, and its temporaries are not abandoned.
        bool alive = pid > 0 && pid != long(getpid()) && (::kill(pid_t(pid), 0) == 0 || errno == EPERM);
        previous_killed_ = !alive;
    }
    fs::create_directories(state_dir, ec);
    sdk::write_file_atomic(file_, std::to_string(getpid()) + "\n");
}

RunMarker::~RunMarker() {
    std::error_code ec;
    fs::remove(file_, ec);
}

bool is_own_temporary(std::string_view name) {
    const std::string_view prefix = sdk::kTempPrefix;
    if (name.size() != prefix.size() + 16 || !name.starts_with(prefix)) return false;
    return std::all_of(name.begin() + long(prefix.size()), name.end(),
                       [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

size_t remove_abandoned_temporaries(const std::set<fs::path>& dirs, fs::file_time_type before) {
    size_t removed = 0;
    for (const auto& dir : dirs) {
        std::error_code ec;
        for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
            if (!is_own_temporary(it->path().filename().native())) continue;
            std::error_code e2;
            if (!it->is_regular_file(e2) || it->is_symlink(e2)) continue;
            auto t = fs::last_write_time(it->path(), e2);
            if (e2 || t >= before) continue;
            if (fs::remove(it->path(), e2)) ++removed;
        }
    }
    return removed;
}

} // namespace af::engine
