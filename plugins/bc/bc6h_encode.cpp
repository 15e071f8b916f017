// Placeholder until the BC6H encoder lands: refuses instead of inventing data.
#include "bptc.hpp"

#include <stdexcept>

namespace af::bc {
void encode_bc6h_block(const float*, uint8_t*, const Bc6hOptions&) {
    throw std::logic_error("unsupported: BC6H encoding not implemented yet");
}
} // namespace af::bc
