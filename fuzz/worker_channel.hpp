// What the worker-reply harnesses share: a reply sent over a real SOCK_SEQPACKET pair with its descriptors
// (SCM_RIGHTS), as a worker sends it, and received as the host receives it.
#pragma once

#include "host/isolation/wire.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <vector>

namespace af::fuzz {

// Sends `body` with `fds` (closed here) and receives it into `out`; false when the kernel refused to carry it.
inline bool through_socket(const std::vector<uint8_t>& body, std::vector<int>& fds, host::isolation::Message& out) {
    namespace iso = host::isolation;
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) std::abort();
    const bool sent = iso::send_message(sv[0], iso::Op::Reply, body, fds);
    iso::close_fds(fds);
    ::close(sv[0]);
    const bool received = sent && iso::recv_message(sv[1], out);
    ::close(sv[1]);
    return received;
}

} // namespace af::fuzz
