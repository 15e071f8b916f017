// What plugins say while one action runs (host/plugin_notes.hpp), kept in the
// action's results: read warnings and plugin warnings in `warnings` (printed
// with the action's result, kept with its record, in every report), other log
// lines in `plugin_log` (printed as they come, and in the reports).
#pragma once

#include "base/step_results.hpp"
#include "host/plugin_notes.hpp"

#include <string>

namespace af::steps {

// Collects for its lifetime on this thread; on destruction (the action
// finished or failed) moves what it collected into `results`. `input` names
// the file for lines of plugin calls given none (a codec's, a writer's).
class ActionNotes {
  public:
    ActionNotes(base::StepResults& results, const std::string& input);
    ~ActionNotes();
    ActionNotes(const ActionNotes&) = delete;
    ActionNotes& operator=(const ActionNotes&) = delete;

  private:
    base::StepResults& results_;
    host::PluginNotes notes_;
    host::PluginNotesScope scope_;
};

} // namespace af::steps
