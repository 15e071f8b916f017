#include "host/plugin_notes.hpp"

#include "assetforge/plugin_abi.h"

namespace af::host {
namespace {
thread_local PluginNotes* t_notes = nullptr;
} // namespace

PluginNotesScope::PluginNotesScope(PluginNotes* notes) : previous_(t_notes) { t_notes = notes; }
PluginNotesScope::~PluginNotesScope() { t_notes = previous_; }

PluginNotes* current_notes() { return t_notes; }

std::string current_note_file() { return t_notes ? t_notes->file : std::string(); }

bool keep_plugin_note(int level, const std::string& line) {
    PluginNotes* n = t_notes;
    if (!n) return false;
    std::lock_guard lock(n->mutex);
    (level >= AF_LOG_WARN ? n->warnings : n->log).push_back(line);
    return true;
}

std::string read_warning_line(const std::string& file, unsigned long long offset, const std::string& text,
                              const std::string& plugin) {
    return file + ": " + (offset == AF_NO_OFFSET ? "" : "offset " + std::to_string(offset) + ": ") + text +
           " (plugin '" + plugin + "')";
}

} // namespace af::host
