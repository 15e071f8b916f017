// Text for a user's terminal, shared by the host and plugins. Header-only.
//
// printable(): the one escaping function for everything printed: control
// bytes (a NUL, a newline or ESC from a hostile file name), C1 controls and
// bytes that are not UTF-8 shown as \xNN, so a name cannot start a line of
// its own or move the cursor.
//
// describe(): what an exception says to a user. An af::sdk::Error carries a
// message written for users; the standard library's texts (`map::at`,
// `stoi`, `basic_string::_M_replace`, `[json.exception.type_error.316] …`)
// name no file, entry or operation, so they are worded as a kind of failure,
// never shown as a function's name; the caller puts its context (file,
// entry, operation) before them: error_line().
#pragma once

#include "assetforge/error.hpp"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>

namespace af::sdk {

inline std::string printable(std::string_view text) {
    std::string out;
    auto escape = [&](unsigned char c) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\x%02x", c);
        out += buf;
    };
    for (size_t i = 0; i < text.size();) {
        const unsigned char c = static_cast<unsigned char>(text[i]);
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f)
                escape(c);
            else
                out += char(c);
            ++i;
            continue;
        }
        // UTF-8 stays readable. Bytes that are not UTF-8, and the C1 controls
        // (U+0080..U+009F, which some terminals act on like ESC), are escaped.
        const size_t len = c >= 0xf0 ? (c <= 0xf4 ? 4 : 0) : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;
        bool valid = len && i + len <= text.size();
        for (size_t k = 1; valid && k < len; ++k) valid = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
        const bool c1 = valid && c == 0xc2 && static_cast<unsigned char>(text[i + 1]) < 0xa0;
        if (!valid || c1) {
            escape(c);
            if (c1) escape(static_cast<unsigned char>(text[i + 1]));
            i += c1 ? 2 : 1;
            continue;
        }
        out.append(text.substr(i, len));
        i += len;
    }
    return out;
}

// A message that came without its exception (a plugin's AF_ERR_INTERNAL
// text): kept when it reads as a sentence, else worded as an internal error.
inline std::string describe_text(std::string_view w) {
    // nlohmann::json's texts start with "[json.exception.<kind>.<id>] ": the
    // rest is worded for users ("invalid UTF-8 byte at index 3: 0xFF").
    if (w.rfind("[json.exception.", 0) == 0) {
        const size_t close = w.find("] ");
        if (close != std::string_view::npos) return "JSON: " + std::string(w.substr(close + 2));
    }
    // A library function's name ("map::at", "stoi", "basic_string::_M_create",
    // "vector::_M_range_check: __n (which is 3) >= this->size() (which is 3)"): a
    // library's text starts with it. A plugin's sentence that only names something
    // with "::" further on is its own words, and kept.
    const std::string_view first = w.substr(0, w.find(' '));
    const bool one_word = first.size() == w.size();
    const bool library = first.find("::") != std::string_view::npos || w.find("std::") != std::string_view::npos ||
                         (one_word && (w.rfind("sto", 0) == 0 || w.find('_') != std::string_view::npos));
    return library ? "internal error" : std::string(w);
}

inline std::string describe(const std::exception& e) {
    if (auto* x = dynamic_cast<const Error*>(&e))
        return x->status() == AF_ERR_INTERNAL ? describe_text(x->what()) : x->what();
    if (dynamic_cast<const std::bad_alloc*>(&e)) return "out of memory";
    if (auto* x = dynamic_cast<const std::filesystem::filesystem_error*>(&e)) {
        std::string s = x->code().message();
        if (!x->path1().empty()) s = x->path1().string() + ": " + s;
        if (!x->path2().empty()) s += " (and " + x->path2().string() + ")";
        return s;
    }
    if (auto* x = dynamic_cast<const std::system_error*>(&e)) return x->code().message();
    const std::string_view w = e.what();
    if (w.rfind("[json.exception.", 0) == 0) return describe_text(w);
    std::string kind;
    if (dynamic_cast<const std::out_of_range*>(&e))
        kind = "an entry or index looked up is not there";
    else if (dynamic_cast<const std::length_error*>(&e))
        kind = "a size beyond what can be held";
    else if (dynamic_cast<const std::invalid_argument*>(&e))
        kind = "a value that is not a number";
    else if (dynamic_cast<const std::logic_error*>(&e))
        kind = "a broken assumption";
    // The project's own exceptions (invalid_argument, runtime_error) are sentences.
    const std::string said = describe_text(w);
    if (said != "internal error") return said;
    return kind.empty() ? said : "internal error: " + kind;
}

// `context: what went wrong`, escaped: the line a command prints for an error.
inline std::string error_line(std::string_view context, const std::exception& e) {
    std::string s(context);
    if (!s.empty()) s += ": ";
    return printable(s + describe(e));
}

} // namespace af::sdk
