#include "steps/step.hpp"

namespace af::steps {
namespace {

std::string owner_of(const StepDef& d) {
    if (d.plugin.empty()) return "the built-in step";
    return "a stage of plugin '" + d.plugin + "' (" + d.plugin_file.string() + ")";
}

} // namespace

void StepTable::add(StepDef def) {
    if (const StepDef* old = find(def.name))
        throw StepNameTaken("two steps are named '" + def.name + "': " + owner_of(*old) + " and " + owner_of(def) +
                            "; step names must be unique, so rename the stage or remove one of the plugins");
    std::string name = def.name;
    steps_[name] = std::make_unique<StepDef>(std::move(def));
}

const StepDef* StepTable::find(std::string_view name) const {
    auto it = steps_.find(name);
    return it == steps_.end() ? nullptr : it->second.get();
}

void StepTable::keeps_names(std::initializer_list<std::string_view> names) {
    for (auto n : names)
        if (auto it = steps_.find(n); it != steps_.end()) it->second->keeps_names = true;
}

std::vector<std::string> StepTable::names() const {
    std::vector<std::string> v;
    for (const auto& [k, _] : steps_) v.push_back(k);
    return v;
}

} // namespace af::steps
