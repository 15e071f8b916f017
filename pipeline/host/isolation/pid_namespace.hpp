// A plugin worker in a PID namespace of its own, where the kernel allows one: the plugin sees no process of the
// user's but its own (and its namespace's first process), so a hole in the seccomp filter's rules on signals and
// process handles would still find no host to aim at.
#pragma once

namespace af::host::isolation {

// Makes the calling worker process 2 of a new PID namespace and returns true; returns false, with nothing changed,
// where the kernel refuses (no user namespace, or a kernel without PID namespaces). Call it single-threaded, inside
// the worker's user namespace and before anything of a plugin's is loaded.
//
// Why process 2 and not 1: the first process of a namespace ignores every signal it has no handler for, its own
// included, so a plugin's abort() or a crash re-raised by the crash handler would end it with another signal (or
// not at all). Two small processes stand between the host and the worker instead, and the host sees the worker's
// own end on the process it started:
//   - the one the host started stays in the host's namespace and ends exactly as the worker did (the same exit
//     code, or the same signal raised on itself);
//   - process 1 reaps the namespace and reports the worker's wait status to it through a pipe.
// Both hold no descriptor but that pipe, so the host still sees the worker's socket and output close when it ends.
// Killing the process the host started (an action's timeout) kills process 1 (its parent-death signal), and with
// it the whole namespace.
bool enter_pid_namespace();

} // namespace af::host::isolation
