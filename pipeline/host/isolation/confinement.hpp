// What a plugin worker gives up before the plugin's library is loaded, so that no line of the plugin (its ELF
// constructors and entry function included) runs with the user's files or network in reach: namespaces where the
// kernel allows them, no new privileges, and a Landlock ruleset that lets it read only the system's libraries.
#pragma once

#include <string>

namespace af::host::isolation {

struct Confinement {
    std::string namespaces;       // the namespaces that were entered, "user net ipc uts mnt pid", or ""
    int landlock_abi = 0;         // the Landlock ABI applied; 0: none (the kernel has none, or the user allowed that)
    bool landlock_absent = false; // the kernel has no Landlock (ENOSYS, EOPNOTSUPP)
    // One line for `assetforge plugins` and debug output: "Landlock ABI 7, namespaces user net ipc uts mnt pid,
    // seccomp".
    std::string text() const;
};

// Enters the namespaces it can, skipping quietly those the kernel refuses, and records them in `out`. Where a PID
// namespace holds, the caller goes on as its process 2, with new processes between it and the host
// (pid_namespace.hpp): anything that names this process (/proc/self) is to be opened after this call.
void enter_namespaces(Confinement& out);

// Sets PR_SET_NO_NEW_PRIVS and applies
// a Landlock ruleset that handles every file system right (and, from ABI 4, TCP; from ABI 6, signals and abstract
// sockets beyond the worker) and grants read and execute only beneath the system library folders and on the
// plugin's library, `library_fd`. Without Landlock (ENOSYS, EOPNOTSUPP: an old kernel, or one booted without it) it
// fails, with the reason in `why`, unless `allow_unconfined` (--allow-unconfined-load) says to go on without it.
bool confine_for_load(int library_fd, bool allow_unconfined, Confinement& out, std::string& why);

} // namespace af::host::isolation
