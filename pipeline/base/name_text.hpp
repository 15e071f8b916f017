// File names in the machine-readable outputs (JSON report, status --json,
// trace, zip manifest, JUnit XML). A name on disk is bytes and need not be
// UTF-8; JSON and XML text must be. The rule, everywhere: each byte that is
// not part of valid UTF-8 is written as U+FFFD, and a JSON object that holds
// such a name also holds "<key>_base64" with its raw bytes (RFC 4648), so a
// reader can still tell two names apart and find the file.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace af::base {

bool is_utf8(std::string_view s);

// `s` with each byte outside valid UTF-8 as U+FFFD.
std::string utf8_or_replacement(std::string_view s);

std::string base64(std::string_view bytes);

// The helpers below take any nlohmann::json-like document: only the files that write JSON include the library.

// obj[key] = name; obj[key + "_base64"] = its bytes when it is not UTF-8.
template <class Json> void put_name(Json& obj, const std::string& key, const std::string& name) {
    if (is_utf8(name)) {
        obj[key] = name;
        return;
    }
    obj[key] = utf8_or_replacement(name);
    obj[key + "_base64"] = base64(name);
}

// The same for a list of names: "<key>_base64" lists every name's bytes
// (in order) when any one is not UTF-8.
template <class Json> void put_names(Json& obj, const std::string& key, const std::vector<std::string>& names) {
    bool all_utf8 = true;
    Json text = Json::array();
    for (const auto& n : names) {
        all_utf8 = all_utf8 && is_utf8(n);
        text.push_back(utf8_or_replacement(n));
    }
    obj[key] = std::move(text);
    if (all_utf8) return;
    Json raw = Json::array();
    for (const auto& n : names) raw.push_back(base64(n));
    obj[key + "_base64"] = std::move(raw);
}

// The document as text; strings that are not UTF-8 (a name put without
// put_name, an error message quoting one) get U+FFFD instead of an abort.
template <class Json> std::string json_text(const Json& doc, int indent) {
    return doc.dump(indent, ' ', false, Json::error_handler_t::replace);
}

} // namespace af::base
