// File names in the machine-readable outputs (JSON report, status --json,
// trace, zip manifest, JUnit XML). A name on disk is bytes and need not be
// UTF-8; JSON and XML text must be. The rule, everywhere: each byte that is
// not part of valid UTF-8 is written as U+FFFD, and a JSON object that holds
// such a name also holds "<key>_base64" with its raw bytes (RFC 4648), so a
// reader can still tell two names apart and find the file.
#pragma once

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <string_view>
#include <vector>

namespace af::engine {

bool is_utf8(std::string_view s);

// `s` with each byte outside valid UTF-8 as U+FFFD.
std::string utf8_or_replacement(std::string_view s);

std::string base64(std::string_view bytes);

// obj[key] = name; obj[key + "_base64"] = its bytes when it is not UTF-8.
void put_name(nlohmann::json& obj, const std::string& key, const std::string& name);
// The same for a list of names: "<key>_base64" lists every name's bytes
// (in order) when any one is not UTF-8.
void put_names(nlohmann::json& obj, const std::string& key, const std::vector<std::string>& names);

// The document as text; strings that are not UTF-8 (a name put without
// put_name, an error message quoting one) get U+FFFD instead of an abort.
std::string json_text(const nlohmann::json& doc, int indent);

} // namespace af::engine
