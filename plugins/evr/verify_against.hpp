// Verifying a repacked set against the set it was made from: the repack
// rules (file order and identities, Metadata and the header's unknown fields
// kept, untouched frames copied byte for byte) and which structural oddities
// the repack introduced rather than inherited. A set made from a game set
// that already had an unreferenced frame keeps that frame; that is not the
// modder's problem and never fails a strict check.
#pragma once

#include "package_set.hpp"

#include "assetforge/plugin_abi.h"

#include <cstdint>
#include <string>
#include <vector>

namespace af::evr {

struct AgainstReport {
    std::vector<std::string> problems;   // repack rules broken: always errors
    std::vector<std::string> introduced; // structural warnings of the new set beyond the original's
    uint64_t inherited = 0;              // structural warnings the original has as well
    std::vector<uint64_t> changed;       // indices of original files whose content differs
    uint64_t added = 0;                  // files after the original's
};

// Decodes every referenced data frame of both sets (in parallel on the
// host's arena; null: serially). Throws on a frame that fails to decode.
AgainstReport verify_against(const PackageSet& fresh, const PackageSet& original, const af_host* host);

// Every structural oddity of `set` with its kind, including the manifest's
// (header-length 24, bytes after the tables) and a part file past the count.
std::vector<Finding> all_findings(const PackageSet& set);

} // namespace af::evr
