// What the host takes from a worker running a plugin stage: each item the stage emits arrives as one Op::Emit
// message (its name, metadata, kind, and its bytes or texture data and palette as memfds), and is handed to the
// engine's own emit once every size, count and descriptor in it is checked. The worker runs third-party code and
// may say anything (replies.hpp): a message that does not hold together fails the call ("answered badly"), never
// the host. The message's descriptors are consumed in every case.
#pragma once

#include "assetforge/plugin_abi.h"
#include "host/isolation/wire.hpp"

#include <cstdint>
#include <string>

namespace af::host::isolation {

// What one stage call may still hand over: emitted bytes (texture data and palettes included) and items. A
// stage in process is bounded by the process's memory; in a worker the host is the one that would hold it all.
struct EmitAllowance {
    uint64_t bytes = 0;
    uint64_t items = 0;
};

// The allowance of one call under the current settings: the memory budget, and the host's --max-items.
EmitAllowance emit_allowance();

// Decodes one Op::Emit message and passes the item to io->emit. AF_OK, or the error (in e) that fails the call.
af_status emitted_item(Message& m, const std::string& plugin, const af_stage_io* io, EmitAllowance& left, af_error* e);

} // namespace af::host::isolation
