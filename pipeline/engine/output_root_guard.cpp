#include "engine/output_root_guard.hpp"

#include "base/output_template.hpp"

#include <stdexcept>
#include <system_error>

namespace af::engine {
namespace fs = std::filesystem;

void check_no_link_escape(const fs::path& target, const fs::path& output_root) {
    const fs::path root = output_root.lexically_normal();
    const fs::path out = target.lexically_normal();
    if (!base::path_within(out, root) || out == root)
        throw std::runtime_error("output path '" + out.string() + "' is not inside the output root '" + root.string() +
                                 "'");
    std::error_code ec;
    // The root itself is the user's choice and may be a link (build → /mnt/fast).
    const fs::path real_root = fs::weakly_canonical(root, ec);
    if (ec) throw std::runtime_error("output root '" + root.string() + "': " + ec.message());
    // Walk the directories between the root and the file, so the error can
    // name the link that leads out rather than just the final path.
    fs::path dir = root;
    const fs::path rel = out.parent_path().lexically_relative(root);
    for (const auto& part : rel) {
        if (part.empty() || part == ".") continue;
        dir /= part;
        auto st = fs::symlink_status(dir, ec);
        if (ec || !fs::is_symlink(st)) {
            if (ec && ec != std::errc::no_such_file_or_directory)
                throw std::runtime_error("output directory '" + dir.string() + "': " + ec.message());
            if (!fs::exists(st)) return; // the rest will be created as real directories
            continue;
        }
        if (!fs::exists(fs::status(dir, ec)))
            throw std::runtime_error("output path '" + out.string() + "' goes through the dangling symbolic link '" +
                                     dir.string() + "'; refusing to write through it");
        const fs::path real = fs::weakly_canonical(dir, ec);
        if (ec) throw std::runtime_error("output directory '" + dir.string() + "': " + ec.message());
        if (!base::path_within(real, real_root))
            throw std::runtime_error("output path '" + out.string() + "' goes through the symbolic link '" +
                                     dir.string() + "' → '" + real.string() + "', outside the output root '" +
                                     root.string() +
                                     "'; refusing to write through it (make it a real directory or point it "
                                     "inside the output root)");
    }
}

} // namespace af::engine
