#include "steps/action_notes.hpp"

namespace af::steps {

ActionNotes::ActionNotes(base::StepResults& results, const std::string& input) : results_(results), scope_(&notes_) {
    notes_.file = input;
}

ActionNotes::~ActionNotes() {
    try {
        std::lock_guard lock(notes_.mutex);
        for (auto& w : notes_.warnings) results_.warnings.push_back(std::move(w));
        for (auto& l : notes_.log) results_.plugin_log.push_back(std::move(l));
        if (notes_.omitted_warnings)
            results_.warnings.push_back(host::omitted_line(notes_.omitted_warnings, "warnings"));
        if (notes_.omitted_log) results_.plugin_log.push_back(host::omitted_line(notes_.omitted_log, "log lines"));
    } catch (...) {
        // Out of memory while failing: the notes are lost, the action's own outcome is not.
    }
}

} // namespace af::steps
