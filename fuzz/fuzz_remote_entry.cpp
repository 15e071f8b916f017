// Remote cache entries come from a server we do not trust: arbitrary bytes must decode to nothing or to an
// entry that, once it passes check_entry, survives an encode/decode round trip unchanged.
#include "remote/action_result.hpp"
#include "remote/entry_checks.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string why;
    const auto entry = af::remote::decode_action_result({reinterpret_cast<const char*>(data), size}, &why);
    if (!entry || af::remote::check_entry(*entry, int64_t{1} << 30)) return 0;
    const auto again = af::remote::decode_action_result(af::remote::encode_action_result(*entry), &why);
    if (!again || !(*again == *entry)) std::abort();
    return 0;
}
