#include "base/config_error.hpp"

#include "base/user_words.hpp"

#include <utility>

namespace af::base {

ConfigErrorList::ConfigErrorList(std::vector<ConfigError> errors, size_t left_out)
    : ConfigError(errors.front()), errors_(std::move(errors)), left_out_(left_out) {}

std::string SourcePos::str() const {
    std::string s = file.empty() ? std::string("<config>") : file;
    if (line > 0) {
        s.append(1, ':').append(std::to_string(line));
        s.append(1, ':').append(std::to_string(column));
    }
    return s;
}

std::string not_one_of(std::string_view what, std::string_view word, const std::vector<std::string>& choices) {
    std::string out;
    out.append(1, '\'').append(word).append("' is not a valid ").append(what).append("; valid: ");
    for (size_t i = 0; i < choices.size(); ++i) out.append(i ? ", " : "").append(choices[i]);
    out.append(did_you_mean(word, choices));
    return out;
}

} // namespace af::base
