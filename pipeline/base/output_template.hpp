// Output path templates: "build/{dir}/{stem}.png". Placeholders come from the
// item's name ({dir} {stem} {ext} {name} {path}) and metadata ({mip} {face}
// {layer} {x} {y} {level} …); "{{" and "}}" are literal braces.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace af::base {

class OutputTemplate {
  public:
    // Throws std::invalid_argument on unbalanced braces or bad placeholder names.
    static OutputTemplate parse(const std::string& text);

    // The text before the first placeholder, cut at its last '/': the
    // directory every expansion must stay inside.
    std::string static_prefix() const;
    bool has_parent_ref_after_placeholder() const;
    std::vector<std::string> placeholders() const;

    // Throws std::runtime_error naming a missing placeholder and the values there are.
    std::string expand(const std::map<std::string, std::string>& values) const;

    // The fast path of resolve_output() for templates that use only values
    // derived from the item's name ({dir} {stem} {ext} {name} {path} {job}
    // and their input_ twins): the same string, without building a map and
    // paths per item (a plan of 10,000 files makes 10,000). False when this
    // case needs the general path (an unsafe value, '..', a placeholder
    // from metadata); call resolve_output() then.
    bool resolve_name_only(std::string_view name, std::string_view job, const std::string& project_root,
                           std::string& out) const;

    struct Part {
        bool placeholder;
        std::string text; // literal text, or the placeholder's name
    };
    const std::vector<Part>& parts() const { return parts_; }

  private:
    std::vector<Part> parts_;
    std::string prefix_; // static_prefix(), kept: a plan asks for it once per file
    std::string compute_prefix() const;
};

// Values for one item: dir/stem/ext/name/path from `name`, then `meta`.
std::map<std::string, std::string>
template_values(const std::string& name, const std::map<std::string, std::string>& meta, const std::string& job);

// Lexical: `p` equals `root` or lies below it (both absolute and normal).
bool path_within(const std::filesystem::path& p, const std::filesystem::path& root);

// Why a placeholder value may not be used in a path ("is an absolute path",
// "contains '..'", …), or "" when it is a safe relative name.
std::string unsafe_name_reason(const std::string& value);

// Expands `tpl` for an item and resolves it against `project_root`; throws
// std::runtime_error if a placeholder value is unsafe (see unsafe_name_reason)
// or the result escapes the template's fixed directory.
std::filesystem::path resolve_output(const OutputTemplate& tpl, const std::map<std::string, std::string>& values,
                                     const std::filesystem::path& project_root);

} // namespace af::base
