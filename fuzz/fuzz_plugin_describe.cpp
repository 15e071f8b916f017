// A plugin worker describes a third-party plugin's tables to the host, which never loads the library itself
// (host/isolation/plugin_description.hpp). The worker runs that plugin's code and may answer anything: arbitrary
// bytes become one reply, with descriptors or not, sent over a real socket pair and decoded as the host decodes a
// description. Whatever it says, the host never crashes, reads past a buffer or keeps what the reply only claims;
// what it accepts holds together: every name a NUL-terminated non-empty string, every list as long as its count.
#include "host/isolation/plugin_description.hpp"
#include "host/isolation/wire.hpp"
#include "host/plugin_registry.hpp"
#include "worker_channel.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace iso = af::host::isolation;

namespace {

void text(const char* s) {
    if (s) (void)std::strlen(s);
}

void list(const char* const* l) {
    for (uint32_t i = 0; l && l[i]; ++i) {
        if (i > iso::kMaxDescribedStrings) std::abort();
        text(l[i]);
    }
}

void params(const af_param* const* p, uint32_t n) {
    if (!p && n) std::abort();
    for (uint32_t i = 0; i < n; ++i) {
        if (!p[i] || !p[i]->name || !*p[i]->name) std::abort();
        if (p[i]->type == AF_PARAM_ENUM && (!p[i]->choices || !p[i]->choices[0])) std::abort();
        list(p[i]->choices);
        text(p[i]->default_value);
        text(p[i]->doc);
    }
}

// Everything the host reads of a plugin's tables, read.
void check(const af::host::LoadedPlugin& p) {
    if (p.name.empty()) std::abort();
    if (p.containers.size() > iso::kMaxDescribedItems || p.codecs.size() > iso::kMaxDescribedItems) std::abort();
    for (const af_container& c : p.containers) {
        if (!c.name || !*c.name || !c.probe) std::abort();
        if (((c.caps & AF_CAN_READ) && !c.read) || ((c.caps & AF_CAN_WRITE) && !c.write)) std::abort();
        text(c.extensions);
        text(c.description);
        params(c.read_options, c.read_option_count);
        params(c.write_options, c.write_option_count);
        list(c.meta_keys);
    }
    for (const af_codec& c : p.codecs) {
        if (!c.name || (c.format_count && !c.formats)) std::abort();
        for (uint32_t i = 0; i < c.format_count; ++i) (void)c.formats[i];
        params(c.decode_options, c.decode_option_count);
        params(c.encode_options, c.encode_option_count);
    }
    for (const af_stage& s : p.stages) {
        if (!s.name || !s.run || (s.kind != AF_STAGE_MAP && s.kind != AF_STAGE_GATHER)) std::abort();
        list(s.params);
        params(s.param_decls, s.param_decl_count);
        list(s.meta_keys);
    }
    for (const af_command& c : p.commands)
        if (!c.name || !*c.name || !c.run) std::abort();
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size == 0) return 0;
    // The first byte: how many descriptors come with the reply (memory files a liar might attach).
    std::vector<int> fds;
    for (uint8_t i = 0, n = data[0] % (iso::kMaxFds + 1); i < n; ++i)
        if (const int fd = ::memfd_create("fuzz", MFD_CLOEXEC); fd >= 0) fds.push_back(fd);
    const std::vector<uint8_t> body(data + 1, data + size);

    iso::Message reply;
    if (!af::fuzz::through_socket(body, fds, reply)) return 0;

    af::host::LoadedPlugin p;
    std::string why;
    if (iso::description_reply(reply, p, why))
        check(p);
    else if (why.empty())
        std::abort();                     // a refusal always says why
    if (!reply.fds.empty()) std::abort(); // every descriptor consumed
    return 0;
}
