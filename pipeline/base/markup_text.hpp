// Text for XML and HTML documents the build writes (JUnit, the HTML report):
// the five special characters as entities, and control characters that XML
// 1.0 does not allow (all but tab and newline) and bytes that are not UTF-8
// (a file name on disk need not be) as U+FFFD.
#pragma once

#include "base/name_text.hpp"

#include <string>

namespace af::base {

inline std::string markup_text(const std::string& raw) {
    const std::string in = utf8_or_replacement(raw);
    std::string out;
    out.reserve(in.size());
    for (unsigned char c : in) {
        switch (c) {
        case '&':
            out += "&amp;";
            break;
        case '<':
            out += "&lt;";
            break;
        case '>':
            out += "&gt;";
            break;
        case '"':
            out += "&quot;";
            break;
        case '\'':
            out += "&#39;";
            break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n')
                out += "\xEF\xBF\xBD";
            else
                out += char(c);
        }
    }
    return out;
}

} // namespace af::base
