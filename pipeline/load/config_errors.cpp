#include "load/config_errors.hpp"

namespace af::load {

void ConfigErrorCollector::add(const base::ConfigError& e) {
    // Several errors of one step (each bad parameter) are each an error of the file.
    if (const auto* list = dynamic_cast<const ConfigErrorList*>(&e)) {
        for (const auto& one : list->all()) add(one);
        left_out_ += list->left_out();
        return;
    }
    // The same mistake reached twice (a preset used by two jobs) is said once.
    for (const auto& seen : errors_)
        if (std::string_view(seen.what()) == e.what()) return;
    if (errors_.size() < kCap)
        errors_.push_back(e);
    else
        ++left_out_;
}

void ConfigErrorCollector::throw_if_any() const {
    if (errors_.empty()) return;
    if (errors_.size() == 1 && left_out_ == 0) throw errors_.front();
    throw ConfigErrorList(errors_, left_out_);
}

std::vector<std::string> config_error_lines(const base::ConfigError& e) {
    std::vector<std::string> lines;
    const auto* list = dynamic_cast<const ConfigErrorList*>(&e);
    if (!list) return {base::printable_name(e.what())};
    for (const auto& one : list->all()) lines.push_back(base::printable_name(one.what()));
    if (list->left_out() > 0)
        lines.push_back("... and " + std::to_string(list->left_out()) + " more error" +
                        (list->left_out() == 1 ? "" : "s"));
    return lines;
}

} // namespace af::load
