// Configuration errors: every one names file:line:column and, where a word
// was expected, the valid choices and the closest one ("did you mean …").
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace af::engine {

struct SourcePos {
    std::string file;
    int line = 0, column = 0; // 1-based; 0 when unknown
    std::string str() const;
};

class ConfigError : public std::runtime_error {
  public:
    ConfigError(const SourcePos& pos, const std::string& message)
        : std::runtime_error(pos.str() + ": " + message), pos_(pos) {}
    const SourcePos& pos() const { return pos_; }

  private:
    SourcePos pos_;
};

size_t edit_distance(std::string_view a, std::string_view b);

// " (did you mean 'x'?)" when a choice is close enough, else "".
std::string did_you_mean(std::string_view word, const std::vector<std::string>& choices);

// "'word' is not a valid <what>; valid: a, b, c (did you mean 'b'?)"
std::string not_one_of(std::string_view what, std::string_view word, const std::vector<std::string>& choices);

// `name` (or a whole message that may hold one) for a terminal or a log:
// control bytes (a NUL, a newline or ESC from a hostile file name), C1
// controls and bytes that are not UTF-8 shown as \xNN, so a name cannot
// start a line of its own or move the cursor. sdk::printable() under the
// engine's name: the one escaping function for everything the tool prints.
std::string printable_name(std::string_view name);

} // namespace af::engine
