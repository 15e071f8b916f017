#include "steps/param_check.hpp"

#include "assetforge/error.hpp"
#include "base/config_error.hpp"
#include "base/user_words.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace af::steps {
namespace {

std::string lower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = char(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string number_text(double v, bool integer) {
    if (integer) return std::to_string(static_cast<long long>(v));
    char buf[32];
    snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

std::string range_text(const ParamSpec& s) {
    bool integer = s.type == ParamType::Integer;
    if (s.min && s.max)
        return std::string(s.min_exclusive ? "(" : "[") + number_text(*s.min, integer) + ", " +
               number_text(*s.max, integer) + "]";
    if (s.min) return std::string(s.min_exclusive ? "above " : "of at least ") + number_text(*s.min, integer);
    if (s.max) return "of at most " + number_text(*s.max, integer);
    return "";
}

bool in_range(const ParamSpec& s, double v) {
    if (s.min && (v < *s.min || (s.min_exclusive && v == *s.min))) return false;
    return !(s.max && v > *s.max);
}

// Decimal digits (leading zeros are decimal, not octal) or 0x-hex, with an optional sign.
std::optional<long long> parse_integer(const std::string& v) {
    size_t i = 0;
    bool negative = false;
    if (i < v.size() && (v[i] == '+' || v[i] == '-')) negative = v[i++] == '-';
    int base = 10;
    if (v.size() - i > 2 && v[i] == '0' && (v[i + 1] == 'x' || v[i + 1] == 'X')) {
        base = 16;
        i += 2;
    }
    if (i == v.size()) return std::nullopt;
    for (size_t k = i; k < v.size(); ++k)
        if (base == 10 ? !std::isdigit(static_cast<unsigned char>(v[k]))
                       : !std::isxdigit(static_cast<unsigned char>(v[k])))
            return std::nullopt;
    errno = 0;
    unsigned long long x = std::strtoull(v.c_str() + i, nullptr, base);
    if (errno == ERANGE || x > (unsigned long long)INT64_MAX) return std::nullopt;
    return negative ? -(long long)x : (long long)x;
}

std::optional<double> parse_number(const std::string& v) {
    if (v.empty() || std::isspace(static_cast<unsigned char>(v[0]))) return std::nullopt;
    char* end = nullptr;
    errno = 0;
    double x = std::strtod(v.c_str(), &end);
    if (*end || errno == ERANGE || !std::isfinite(x)) return std::nullopt;
    return x;
}

// The canonical spelling of `v` among `choices`, or nullopt.
std::optional<std::string> choice_of(const ParamSpec& s, const std::string& v) {
    for (const auto& c : s.choices)
        if (c == v || (s.ignore_case && lower(c) == lower(v))) return c;
    return std::nullopt;
}

[[noreturn]] void invalid(const std::string& value, std::string_view what, const std::string& expected) {
    throw std::invalid_argument("'" + base::printable_name(value) + "' is not a valid " + std::string(what) +
                                ": expected " + expected);
}

[[noreturn]] void not_a_choice(const ParamSpec& s, const std::string& value, std::string_view what) {
    std::string msg = base::not_one_of(what, base::printable_name(value), s.choices);
    if (!s.also_valid_doc.empty()) {
        // not_one_of ends with the suggestion, if any: put the other valid values before it.
        auto hint = msg.find(" (did you mean");
        msg.insert(hint == std::string::npos ? msg.size() : hint, ", or " + s.also_valid_doc);
    }
    throw std::invalid_argument(msg);
}

} // namespace

std::string describe_param(const ParamSpec& s) {
    switch (s.type == ParamType::Text && !s.choices.empty() ? ParamType::Enum : s.type) {
    case ParamType::Integer: {
        std::string r = range_text(s);
        return r.empty() ? "an integer" : r[0] == '[' || r[0] == '(' ? "an integer in " + r : "an integer " + r;
    }
    case ParamType::Number: {
        std::string r = range_text(s);
        return r.empty() ? "a number" : r[0] == '[' || r[0] == '(' ? "a number in " + r : "a number " + r;
    }
    case ParamType::Bool:
        return "true or false (also yes/no, on/off, 1/0)";
    case ParamType::Enum: {
        std::string out = "one of ";
        for (size_t i = 0; i < s.choices.size(); ++i) out += (i ? ", " : "") + s.choices[i];
        if (!s.also_valid_doc.empty()) out += ", or " + s.also_valid_doc;
        return out;
    }
    case ParamType::File:
        return "a file path";
    case ParamType::Dir:
        return "a directory path";
    case ParamType::List:
        return "a list";
    case ParamType::Text:
        break;
    }
    return "text";
}

std::string check_param_value(const ParamSpec& s, const std::string& value, std::string_view what) {
    // Text with choices is how specs said "one of" before they had types.
    const ParamType type = s.type == ParamType::Text && !s.choices.empty() ? ParamType::Enum : s.type;
    switch (type) {
    case ParamType::Integer: {
        auto v = parse_integer(value);
        if (!v || !in_range(s, double(*v))) invalid(value, what, describe_param(s));
        return std::to_string(*v);
    }
    case ParamType::Number: {
        auto v = parse_number(value);
        if (!v || !in_range(s, *v)) invalid(value, what, describe_param(s));
        return value;
    }
    case ParamType::Bool: {
        std::string v = lower(value);
        if (v == "true" || v == "yes" || v == "on" || v == "1") return "true";
        if (v == "false" || v == "no" || v == "off" || v == "0") return "false";
        invalid(value, what, describe_param(s));
    }
    case ParamType::Enum:
        if (auto c = choice_of(s, value)) return *c; // the declared spelling, so "BC7" and "bc7" are one key
        if (s.also_valid && s.also_valid(value)) return value;
        if (s.translate) {
            std::optional<std::string> c;
            try {
                c = s.translate(value);
            } catch (const sdk::Error& e) {
                throw std::invalid_argument("'" + base::printable_name(value) + "' is not a valid " +
                                            std::string(what) + ": " + base::printable_name(e.what()));
            }
            if (c) return *c;
        }
        not_a_choice(s, value, what);
    case ParamType::File:
    case ParamType::Dir:
        if (value.empty()) invalid(value, what, describe_param(s));
        return value;
    case ParamType::List:
        if (!s.choices.empty()) {
            size_t start = 0;
            while (true) {
                size_t comma = value.find(',', start);
                std::string element =
                    value.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                if (!choice_of(s, element)) not_a_choice(s, element, "element of " + std::string(what));
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        }
        return value;
    case ParamType::Text:
        break;
    }
    return value;
}

} // namespace af::steps
