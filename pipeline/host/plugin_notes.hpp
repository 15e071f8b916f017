// What plugins say while one action runs: their af_host.log lines and their
// read warnings, each already naming the file and the plugin. A build keeps
// them with the action, so the terminal and every report show them where the
// action is shown, rather than as loose stderr lines no report ever sees.
#pragma once

#include <mutex>
#include <string>
#include <vector>

namespace af::host {

// What one action keeps of a plugin's lines: a plugin that warns 200,000 times must not fill the terminal, the
// state database and every later no-op's output. Past these, lines are counted, not kept.
constexpr size_t kMaxNoteLines = 100;       // of each kind (warnings, log)
constexpr size_t kMaxNoteBytes = 64 * 1024; // of each kind, all lines together
constexpr size_t kMaxNoteLineBytes = 2048;  // one line; longer ones are cut and end with "…"

struct PluginNotes {
    std::mutex mutex;                  // a plugin's parallel_for logs from several threads
    std::vector<std::string> warnings; // read warnings, and log lines at AF_LOG_WARN or above
    std::vector<std::string> log;      // log lines below AF_LOG_WARN (debug ones only under ASSETFORGE_DEBUG)
    size_t warning_bytes = 0, log_bytes = 0;
    size_t omitted_warnings = 0, omitted_log = 0; // lines past the caps
    std::string file; // the action's input: what lines of calls that name no file (codecs, writes) concern
};

// "… 1999 more warnings from plugins omitted (the first 100 are kept)": the line that stands for what was cut.
std::string omitted_line(size_t omitted, const char* kind);

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

enum class NoteFate {
    NoCollector, // no action is collecting on this thread: the caller prints the line
    Kept,
    Omitted // past the caps: counted, and never printed either
};
// Keeps `line` (at af_host.log `level`) in the current collector, within the caps above.
NoteFate keep_plugin_note(int level, const std::string& line);

// "src/x.tga: offset 18: text (plugin 'tga')": how a read warning is shown.
std::string read_warning_line(const std::string& file, unsigned long long offset, const std::string& text,
                              const std::string& plugin);

} // namespace af::host
