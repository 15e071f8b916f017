// A plugin's tables as a worker describes them to the host, which never loads a third-party library itself: names,
// versions, option and parameter declarations, and which entry points exist. The host rebuilds the af_* tables from
// the description, with entry points that route to workers (isolation.cpp: install). The worker runs third-party
// code and may say anything, so every count, string and flag is bounded and checked before the host keeps it.
#pragma once

#include "assetforge/plugin_abi.h"
#include "host/isolation/wire.hpp"

#include <string>

namespace af::host {
struct LoadedPlugin;
}

namespace af::host::isolation {

// What a description may hold at most (each also bounded by the message's size).
inline constexpr uint32_t kMaxDescribedItems = 256;    // containers, codecs, stages or commands
inline constexpr uint32_t kMaxDescribedParams = 1024;  // entries of one parameter list
inline constexpr uint32_t kMaxDescribedStrings = 4096; // entries of one NULL-terminated list (choices, meta keys)
inline constexpr uint32_t kMaxDescribedText = 4096;    // bytes of one string

// In the worker: the loaded plugin's tables.
void put_description(Writer& w, const LoadedPlugin& p);

// In the host: fills p's name, version, description, API and tables from a description. Strings and lists point
// into storage that p.library keeps; entry points are placeholders that fail until routed. Throws
// std::runtime_error naming what does not hold together.
void get_description(Reader& r, LoadedPlugin& p);

// The worker's reply to Op::Describe: its status, then the description. false with `why` set: the worker's reason
// for refusing the plugin, or what was wrong with its reply. The reply's descriptors are closed in every case.
bool description_reply(Message& reply, LoadedPlugin& out, std::string& why);

// The placeholder a sealed plugin's stage runs: stages do not run in workers yet (see isolation.cpp: install).
af_status sealed_stage_unsupported(const af_host*, const af_stage_io*, const af_options*, af_error* e);

} // namespace af::host::isolation
