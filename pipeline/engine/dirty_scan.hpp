// Whether an action must run, and why (ninja's DependencyScan): its key from
// the job's normalised steps and its inputs' content hashes (through the
// state's stat cache), compared with what the state recorded, and its
// recorded outputs checked against the disk.
#pragma once

#include "engine/disk.hpp"
#include "engine/job_run.hpp"
#include "engine/project_paths.hpp"
#include "engine/state_store.hpp"

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace af::engine {

// Hashes feed keys as raw bytes (formatting them as hex was a visible cost).
void hash_field(Hasher& h, const Hash128& v);

// A job's normalised steps, their versions and providers, and its output
// template: what every action of the job shares in its key.
Hash128 job_signature(const Job& j);

class DirtyScan {
  public:
    DirtyScan(StateStore& store, const Disk& disk, ProjectPaths paths, const std::filesystem::path& root,
              std::function<std::string(const std::string&)> tool_identity);

    struct Key {
        Hash128 input_hash; // names and contents of the inputs and of the files parameters name
        Hash128 key;        // with the job's signature
    };
    // Hashes every input not hashed yet (the stat cache reads a file only
    // when its size, mtime or inode changed). Throws when an input is gone.
    Key key(const JobRun& j, std::vector<Input>& inputs);

    // Why the action must run, or "" when its recorded outputs are current.
    // `refreshed`: set when an output's stat changed but its record should
    // simply take the new stat (touched, copied back: same content) or, in a
    // keep_edits job, the edited content (the edit is the point).
    // `edited`: the output whose content differs from what the build wrote.
    std::string out_of_date(const Job& job, const std::shared_ptr<const ActionRecord>& rec, const Hash128& params,
                            const Hash128& input_hash, std::optional<ActionRecord>& refreshed, std::string& edited);

  private:
    std::string plugins_changed(const std::string& recorded);

    StateStore& store_;
    const Disk& disk_;
    ProjectPaths paths_;
    std::filesystem::path root_;
    std::function<std::string(const std::string&)> tool_identity_;
    std::mutex tools_mu_;
    std::unordered_map<std::string, std::string> tools_verdicts_; // plugins recorded by many actions: decided once
};

} // namespace af::engine
