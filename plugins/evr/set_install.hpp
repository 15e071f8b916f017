// Putting a new set into the game's data folder, and taking it out again.
// The README's flow used to say "copy the new files over the game's (keep a
// backup)": a set that shrank left its old higher parts behind, and the
// backup was the modder's to remember. Here every file the install replaces
// or removes is kept first (hard links, or copies across file systems), then
// the new files, written beside their targets, are renamed into place (parts
// first, the manifest last), and stale parts are removed. `restore` puts the
// kept files back and removes the files the install added.
#pragma once

#include "evr_reader.hpp"

#include "assetforge/plugin_abi.h"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace af::evr {

struct InstallReport {
    std::vector<std::string> replaced, added, removed; // paths relative to the game folder
    std::vector<std::string> swept; // temporaries an interrupted install or restore left (full paths)
    bool backup_kept = false;       // a backup of an earlier install existed: it still holds the files from before it
    std::filesystem::path backup;
};

// The default backup folder of set `name` in `game`.
std::filesystem::path default_backup(const std::filesystem::path& game, const std::string& name);

// Installs OUTDATA's set `name` (checked first: every reader check, every
// frame decoded) into `game`. The backup keeps the files from before the
// first install: a second install over a modded set does not replace it.
// Install and restore hold a lock on `game` while they run; each first
// removes the temporaries a killed one left in the folders it writes to
// (the game's manifests/ and packages/, the backup folder).
InstallReport install_set(const std::filesystem::path& outdata, const std::filesystem::path& game,
                          const std::string& name, const std::filesystem::path& backup, const af_host* host,
                          const WarnFn& warn);

struct RestoreReport {
    std::vector<std::string> restored, removed;
    std::vector<std::string> swept; // as InstallReport::swept
};

// Puts the backup's files back, removes those the installs added, then the
// backup. Re-running it after an interruption finishes the job.
RestoreReport restore_set(const std::filesystem::path& game, const std::string& name,
                          const std::filesystem::path& backup, const WarnFn& warn = nullptr);

// A name this file's writers give their temporaries: the SDK's prefix and 16
// lower-case hex digits. Anything else starting with the prefix is not theirs.
bool is_own_temporary(std::string_view name);

} // namespace af::evr
