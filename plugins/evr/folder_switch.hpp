// Replacing a set in a folder that already holds one, so that a process
// killed at any moment leaves the old set or the new one whole. A set is
// several files under fixed names (the manifest and NAME_0, NAME_1, …), and
// no sequence of renames of single files switches them all at once: a kill
// between two left new parts beside the old manifest. Instead the whole
// output folder is prepared beside itself — every other entry hard-linked,
// the new set written — and the two folders are exchanged with one
// renameat2(RENAME_EXCHANGE).
#pragma once

#include <filesystem>
#include <functional>

namespace af::evr {

// `dir` must exist. `write(stage)` writes the new contents into `stage`, a
// copy of `dir` (hard links; folders and symlinks recreated) without the
// entries `skip` returns true for (paths relative to `dir`). Then `stage` and
// `dir` are exchanged and the old contents removed. On failure before the
// exchange `dir` is untouched and the stage removed; a file system that
// cannot exchange folders or link files is refused, never half-written.
void switch_folder(const std::filesystem::path& dir, const std::function<bool(const std::filesystem::path&)>& skip,
                   const std::function<void(const std::filesystem::path&)>& write);

} // namespace af::evr
