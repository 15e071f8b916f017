// What the host takes from a worker's reply. The worker runs third-party code
// and may say anything: every size, count and descriptor in a reply is checked
// before the host relies on it, and a reply that does not hold together is an
// error of that one call ("answered badly"), never an exception or a signal in
// the host. The reply's descriptors are consumed in every case.
#pragma once

#include "assetforge/plugin_abi.h"
#include "host/isolation/texture_wire.hpp"
#include "host/isolation/wire.hpp"

#include <string>

namespace af::host::isolation {

// A probe's verdict; AF_PROBE_NO for a reply that holds none.
int32_t probe_reply(Message& reply);
af_status dims_reply(Message& reply, const std::string& plugin, af_dims* out, af_error* e);
// out's buffers are adopted shared memory (af_host.free releases them); meta points into `meta`.
af_status read_reply(Message& reply, const std::string& plugin, KvStore& meta, af_texture* out, af_error* e);
// out's texts are adopted shared memory, each checked to end in its terminating NUL.
af_status info_reply(Message& reply, const std::string& plugin, af_info_text* out, af_error* e);
// Hands the written bytes to `sink`.
af_status write_reply(Message& reply, const std::string& plugin, af_sink* sink, af_error* e);

// An error reply's fields (status, offset, message) into e; returns the status.
af_status read_status(Reader& r, af_error* e);
void set_error(af_error* e, int status, const std::string& text);

} // namespace af::host::isolation
