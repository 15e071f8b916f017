// Whether a file is a whole shared library for this machine, checked before the dynamic loader sees it. The
// loader maps what the headers claim; a library cut short (a copy interrupted, a download truncated) makes it
// touch pages past the file's end, which is SIGBUS in whichever command was loading plugins.
#pragma once

#include <filesystem>
#include <string>

namespace af::host {

// "" when the file holds everything its ELF headers point at; otherwise what is wrong, with the offset.
std::string library_file_damage(const std::filesystem::path& file);

} // namespace af::host
