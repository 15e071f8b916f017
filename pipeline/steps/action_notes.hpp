// What plugins say while one action runs (host/plugin_notes.hpp), kept in the
// action's metrics: read warnings and plugin warnings in "warnings" (printed
// with the action's result, kept with its record, in every report), other log
// lines in "plugin_log" (printed as they come, and in the reports).
#pragma once

#include "host/plugin_notes.hpp"

#include <nlohmann/json.hpp>

namespace af::engine {

// Collects for its lifetime on this thread; on destruction (the action
// finished or failed) moves what it collected into `metrics`.
class ActionNotes {
  public:
    explicit ActionNotes(nlohmann::json& metrics);
    ~ActionNotes();
    ActionNotes(const ActionNotes&) = delete;
    ActionNotes& operator=(const ActionNotes&) = delete;

  private:
    nlohmann::json& metrics_;
    host::PluginNotes notes_;
    host::PluginNotesScope scope_;
};

} // namespace af::engine
