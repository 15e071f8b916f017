// Configuration errors: every one names file:line:column and, where a word
// was expected, the valid choices and the closest one ("did you mean …").
#pragma once

// Until every user includes it itself (cli/engine_command_line.cpp does not yet).
#include "base/user_words.hpp"

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace af::base {

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

// A ConfigError that stands for several: what() and pos() are the first one's,
// so callers that print one error still print a true one; `all()` has each.
class ConfigErrorList : public ConfigError {
  public:
    ConfigErrorList(std::vector<ConfigError> errors, size_t left_out);
    const std::vector<ConfigError>& all() const { return errors_; }
    size_t left_out() const { return left_out_; } // past the cap, counted but not kept

  private:
    std::vector<ConfigError> errors_;
    size_t left_out_ = 0;
};

// "'word' is not a valid <what>; valid: a, b, c (did you mean 'b'?)"
std::string not_one_of(std::string_view what, std::string_view word, const std::vector<std::string>& choices);

} // namespace af::base
