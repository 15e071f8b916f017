// Every mistake of a pipeline file at once, not one per run: the loader keeps
// going past a bad step, a bad job or an unused -D, and throws them together.
#pragma once

#include "base/config_error.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace af::load {

using base::ConfigErrorList;

// A limit that guards the loader itself (presets or variables that double at every level): never collected and
// gone past, or a hostile file would make the loader do the exponential work the limit is there to stop.
class ConfigLimitError : public base::ConfigError {
  public:
    using base::ConfigError::ConfigError;
};

// Collects errors up to a cap (a file with 300 copies of one mistake needs
// the first few and a count, not 300 lines).
class ConfigErrorCollector {
  public:
    static constexpr size_t kCap = 20;

    template <class F> void attempt(F&& f) {
        try {
            f();
        } catch (const ConfigLimitError&) {
            throw;
        } catch (const ConfigErrorList& list) {
            for (const auto& e : list.all()) add(e);
            left_out_ += list.left_out();
        } catch (const base::ConfigError& e) {
            add(e);
        }
    }
    void add(const base::ConfigError& e);
    bool empty() const { return errors_.empty(); }
    // Throws the one error itself, or a ConfigErrorList of several.
    void throw_if_any() const;

  private:
    std::vector<base::ConfigError> errors_;
    size_t left_out_ = 0;
};

// One line per error (each through printable_name), and "… and N more".
std::vector<std::string> config_error_lines(const base::ConfigError& e);

} // namespace af::load
