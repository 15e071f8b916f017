// Files an action reads besides its inputs: what step parameters of type
// file or folder name (pages.repack's `replacements`, …). Their content is
// part of the action's key, so editing or adding such a file rebuilds it.
#pragma once

#include "core/content_hash.hpp"
#include "engine/state_store.hpp"
#include "load/config.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace af::engine {

struct ParamRead {
    std::string label;          // "pages.repack.replacements", for messages
    std::filesystem::path path; // absolute, normal
    bool folder = false;
    // A file named by a template over the input's name ("orig/{dir}/{stem}.dds",
    // encode's `like`): `path` holds the template, expanded per action.
    bool per_input = false;
};

// The file and folder parameters of a job's steps (relative values resolve
// against the project root, as the steps resolve them).
std::vector<ParamRead> param_reads(const load::Job& job, const std::filesystem::path& root);

// Hashes each into `h`: a file's content, a folder's files (names and
// content, at any depth), or "missing". Files are hashed through the stat
// cache. Throws std::runtime_error naming a link that leads out of the
// project (or out of the folder's own root when it lies outside the
// project), unless the job follows links.
// `input_name` (the action's input, relative) expands per-input templates.
void hash_param_reads(const std::vector<ParamRead>& reads, const load::Job& job, const std::filesystem::path& root,
                      StateStore& store, Hasher& h, const std::string& input_name);

} // namespace af::engine
