// The two inputs of the writer commands: a build manifest (JSON) and a
// replacement directory for repack. Formats are documented in README.md.
#pragma once

#include "pages_writer.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace af::vtpages {

// Pages of a manifest (its JSON text) become a Layout whose payloads are read
// from their files at emit time (sizes are checked now against each sub-header).
Layout layout_from_manifest(const std::string& manifest_text, const std::filesystem::path& base_dir);

struct Edit {
    enum Kind { Put, Remove } kind = Put; // Put replaces an existing page or adds a new one
    PageKey key;
    int32_t compression = -1; // -1: keep the page's (replace) or the default (add)
    std::filesystem::path file;
};

// `L_X_Y.bin`, `L_X_Y.cN.bin` (with compression N) and `L_X_Y.remove`; other
// names are a usage error so a typo never goes unnoticed.
std::vector<Edit> read_replacement_dir(const std::filesystem::path& dir);

// Removals first, then replacements, then additions parents first.
RepackReport apply_edits(Layout& layout, const std::vector<Edit>& edits, uint64_t reserve, int32_t add_compression);

} // namespace af::vtpages
