// The file-system half of the output-root rule (output_template.* does the
// lexical half): a symbolic link below the output root must not carry a write
// or a removal outside it.
//
// Decision: a link to a DIRECTORY on the way to an output that resolves outside
// the output root is refused with an error naming the link; we never delete a
// user's link to "fix" it. A link in place of an output FILE is harmless: the
// output is renamed over it, which replaces the link and never touches its
// target. Links that resolve inside the output root are followed.
//
// The check runs just before the write; a link swapped in between by another
// process is not caught (the threat is a hostile tree, not a racing local user).
#pragma once

#include <filesystem>

namespace af::engine {

// Throws std::runtime_error when a directory on the way from `output_root` to
// `target` is a symbolic link that resolves outside `output_root`, or when
// `target` is not below `output_root` at all. Both paths absolute.
void check_no_link_escape(const std::filesystem::path& target, const std::filesystem::path& output_root);

} // namespace af::engine
