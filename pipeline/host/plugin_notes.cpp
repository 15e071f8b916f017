#include "host/plugin_notes.hpp"

#include "assetforge/plugin_abi.h"

#include <algorithm>

namespace af::host {
namespace {
thread_local PluginNotes* t_notes = nullptr;
} // namespace

PluginNotesScope::PluginNotesScope(PluginNotes* notes) : previous_(t_notes) { t_notes = notes; }
PluginNotesScope::~PluginNotesScope() { t_notes = previous_; }

PluginNotes* current_notes() { return t_notes; }

std::string current_note_file() { return t_notes ? t_notes->file : std::string(); }

NoteFate keep_plugin_note(int level, const std::string& line) {
    PluginNotes* n = t_notes;
    if (!n) return NoteFate::NoCollector;
    const bool warning = level >= AF_LOG_WARN;
    std::lock_guard lock(n->mutex);
    auto& lines = warning ? n->warnings : n->log;
    size_t& bytes = warning ? n->warning_bytes : n->log_bytes;
    const size_t size = std::min(line.size(), kMaxNoteLineBytes);
    if (lines.size() >= kMaxNoteLines || bytes + size > kMaxNoteBytes) {
        ++(warning ? n->omitted_warnings : n->omitted_log);
        return NoteFate::Omitted;
    }
    lines.push_back(line.size() > kMaxNoteLineBytes ? line.substr(0, kMaxNoteLineBytes) + "…" : line);
    bytes += size;
    return NoteFate::Kept;
}

std::string omitted_line(size_t omitted, const char* kind) {
    return "… " + std::to_string(omitted) + " more " + kind + " from plugins omitted (at most " +
           std::to_string(kMaxNoteLines) + " lines or " + std::to_string(kMaxNoteBytes / 1024) +
           " KiB of each kind are kept per action)";
}

std::string read_warning_line(const std::string& file, unsigned long long offset, const std::string& text,
                              const std::string& plugin) {
    return file + ": " + (offset == AF_NO_OFFSET ? "" : "offset " + std::to_string(offset) + ": ") + text +
           " (plugin '" + plugin + "')";
}

} // namespace af::host
