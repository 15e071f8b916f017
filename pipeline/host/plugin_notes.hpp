// What plugins say while one action runs: their af_host.log lines and their
// read warnings, each already naming the file and the plugin. A build keeps
// them with the action, so the terminal and every report show them where the
// action is shown, rather than as loose stderr lines no report ever sees.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace af::host {

struct PluginNotes {
    std::mutex mutex;                  // a plugin's parallel_for logs from several threads
    std::vector<std::string> warnings; // read warnings, and log lines at AF_LOG_WARN or above
    std::vector<std::string> log;      // log lines below AF_LOG_WARN (debug ones only under ASSETFORGE_DEBUG)
    std::string file; // the action's input: what lines of calls that name no file (codecs, writes) concern
};

// Collects the notes of plugin calls made on this thread for its lifetime
// (nested scopes: the innermost collects). nullptr collects nothing.
class PluginNotesScope {
  public:
    explicit PluginNotesScope(PluginNotes* notes);
    ~PluginNotesScope();
    PluginNotesScope(const PluginNotesScope&) = delete;
    PluginNotesScope& operator=(const PluginNotesScope&) = delete;

  private:
    PluginNotes* previous_;
};

// The collector of this thread, or nullptr (then lines go straight to stderr).
PluginNotes* current_notes();

// The file of the current collector ("" when none): for a plugin call given no file of its own.
std::string current_note_file();

// Keeps `line` (at af_host.log `level`) in the current collector; false when there is none.
bool keep_plugin_note(int level, const std::string& line);

// "src/x.tga: offset 18: text (plugin 'tga')": how a read warning is shown.
std::string read_warning_line(const std::string& file, unsigned long long offset, const std::string& text,
                              const std::string& plugin);

} // namespace af::host
