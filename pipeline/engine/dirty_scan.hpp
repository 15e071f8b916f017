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
Hash128 job_signature(const load::Job& j);

// Why an action must run. Control flow asks the kind; people read text().
struct Staleness {
    enum Kind : uint8_t {
        UpToDate,
        NewInput,
        FailedLastTime,
        ParametersChanged,
        InputChanged,
        PluginChanged,   // detail: "dds changed (dds@1.0#ab → dds@1.1#cd)"
        OutputMissing,   // detail: the output's path, as for the two below
        OutputUnreadable,
        OutputEdited,    // its content differs from what the build wrote
        UpstreamRebuilds,
        WarningsUnknown, // --warnings-as-errors, and the record predates keeping warnings
    };
    Kind kind = UpToDate;
    std::string detail;

    explicit operator bool() const { return kind != UpToDate; }
    // "output missing: out/a.dds": the words `--explain`, status and the reports show.
    std::string text() const;
};

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

    // Why the action must run, or UpToDate when its recorded outputs are
    // current. `refreshed`: set when an output's stat changed but its record
    // should simply take the new stat (touched, copied back: same content)
    // or, in a keep_edits job, the edited content (the edit is the point).
    Staleness out_of_date(const load::Job& job, const std::shared_ptr<const ActionRecord>& rec, const Hash128& params,
                          const Hash128& input_hash, std::optional<ActionRecord>& refreshed);

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
