// What a step parameter (or a container/codec option a step passes on) may
// be: its type, range, choices and default. config.cpp checks every value
// against its spec when the pipeline loads (param_check.hpp).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace af::steps {

// File and Dir name paths the step reads (relative to the pipeline's folder).
enum class ParamType { Text, Integer, Number, Bool, Enum, File, Dir, List };

struct ParamSpec {
    std::string name{};
    std::string default_value{};        // used when absent: normalisation fills it in ("" = none)
    std::vector<std::string> choices{}; // Enum: the valid values; List: the valid elements (empty: any)
    std::string doc{};
    ParamType type = ParamType::Text;
    std::optional<double> min{}, max{}; // Integer, Number
    bool min_exclusive = false;         // (min, max] instead of [min, max]
    bool ignore_case = false;           // choices match in any letter case
    bool required = false;
    // Enum: values outside `choices` that are valid all the same (encode's
    // DXGI format names), and how messages describe them.
    std::function<bool(const std::string&)> also_valid{};
    std::string also_valid_doc{};
    // Enum: turns a value outside `choices` into one of them (a plugin's own
    // format names take every name the host's one format parser knows: `bc1`
    // for XTF's DXT1); nullopt when it does not apply, an exception with the
    // reason when it applies and fails.
    std::function<std::optional<std::string>(const std::string&)> translate{};
};

inline ParamSpec text_param(std::string name, std::string def, std::string doc) {
    return {std::move(name), std::move(def), {}, std::move(doc)};
}
inline ParamSpec int_param(std::string name, std::string def, double lo, double hi, std::string doc) {
    return {std::move(name), std::move(def), {}, std::move(doc), ParamType::Integer, lo, hi};
}
inline ParamSpec number_param(std::string name, std::string def, double lo, double hi, std::string doc,
                              bool min_exclusive = false) {
    return {std::move(name), std::move(def), {}, std::move(doc), ParamType::Number, lo, hi, min_exclusive};
}
inline ParamSpec bool_param(std::string name, std::string def, std::string doc) {
    return {std::move(name), std::move(def), {}, std::move(doc), ParamType::Bool};
}
inline ParamSpec enum_param(std::string name, std::string def, std::vector<std::string> choices, std::string doc) {
    return {std::move(name), std::move(def), std::move(choices), std::move(doc), ParamType::Enum};
}

// Options a step hands on to the containers or codecs it uses (read, encode,
// write): the ones they declare, or `any` when one of them declares nothing
// (a plugin built against plugin API < 1.2).
struct PassThrough {
    std::vector<ParamSpec> options{};
    bool any = false;
    std::vector<std::string> owners{}; // the container or codec declaring options[i] (same length when filled)
};

} // namespace af::steps
