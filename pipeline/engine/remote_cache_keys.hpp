// An action in the shared cache: its key, and the rules for taking an entry.
// The key must hold everything that decides the output bytes and nothing a
// machine or a checkout decides, so that two machines with different
// checkouts of one project share hits: the job's signature (normalised steps,
// their versions and providers, the output template), the inputs' names and
// content hashes with the files parameters name (the local key's input hash,
// which holds no absolute path and no mtime) and the identities of the
// loaded plugins (a different plugin build may encode differently).
#pragma once

#include "core/content_hash.hpp"

#include <string>

namespace af::remote {
class RemoteClient;
}

namespace af::engine {

// Lowercase hex SHA-256 (computed by the client), as ac/ names entries.
std::string remote_action_key(const remote::RemoteClient& client, const Hash128& job_signature,
                              const Hash128& input_hash, const std::string& plugin_identities);

// Whether an entry's file (a relative path from the cache) may be written by
// an action of a job whose fixed output folder is `out_base` (absolute): a
// normal path below it. Anything else in an entry is a corrupt or hostile
// cache and the action is built locally instead.
bool cached_path_allowed(const std::string& project_root, const std::string& out_base, const std::string& rel);

} // namespace af::engine
