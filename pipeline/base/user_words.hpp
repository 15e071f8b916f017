// Words a user typed and names the tool shows: the closest valid choice for a
// mistyped word ("did you mean …"), and a name made safe for a terminal.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace af::base {

// Levenshtein with adjacent transpositions counted as one edit.
size_t edit_distance(std::string_view a, std::string_view b);

// " (did you mean 'x'?)" when a choice is close enough, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& choices);

// `name` (or a whole message that may hold one) for a terminal or a log:
// control bytes (a NUL, a newline or ESC from a hostile file name), C1
// controls and bytes that are not UTF-8 shown as \xNN, so a name cannot
// start a line of its own or move the cursor. sdk::printable() under the
// engine's name: the one escaping function for everything the tool prints.
std::string printable_name(std::string_view name);

} // namespace af::base
