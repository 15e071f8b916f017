#include "steps/step_params.hpp"

#include "steps/param_check.hpp"

#include <algorithm>
#include <optional>
#include <string>
#include <vector>

namespace af::steps {
namespace {

const ParamSpec* find_spec(const std::vector<ParamSpec>& specs, const std::string& name) {
    for (const auto& ps : specs)
        if (ps.name == name) return &ps;
    return nullptr;
}

std::string checked(const ParamSpec& spec, const GivenParam& g, const std::string& step) {
    try {
        return check_param_value(spec, g.value, "value for '" + g.key + "' of step '" + step + "'");
    } catch (const std::invalid_argument& e) {
        throw base::ConfigError(g.value_pos, e.what());
    }
}

// Containers or codecs may declare the same option differently: one must accept the value.
std::string checked_option(const std::vector<const ParamSpec*>& specs, const GivenParam& g, const std::string& step) {
    std::optional<base::ConfigError> first_error;
    for (const ParamSpec* spec : specs) {
        try {
            return checked(*spec, g, step);
        } catch (const base::ConfigError& e) {
            if (!first_error) first_error = e;
        }
    }
    throw *first_error;
}

} // namespace

namespace {

// Every bad parameter of a step, said at once, each with its place in the file: fixing them one run at a time is
// what a user should not have to do.
class ParamErrors {
  public:
    template <class F> void check(F&& f) {
        try {
            f();
        } catch (const base::ConfigError& e) {
            errors_.push_back(e);
        }
    }
    void throw_any() const {
        if (errors_.size() == 1) throw errors_.front();
        if (!errors_.empty()) throw base::ConfigErrorList(errors_, 0);
    }

  private:
    std::vector<base::ConfigError> errors_;
};

} // namespace

Params step_params(const StepDef& def, const base::SourcePos& step_pos, const std::vector<GivenParam>& given,
                   const std::string& output_ext) {
    const std::string& step = def.name;
    Params out;
    ParamErrors errors;
    // The step's own parameters first: what it hands on may depend on them (encode's format).
    std::vector<const GivenParam*> others;
    for (const auto& g : given) {
        if (const ParamSpec* spec = find_spec(def.params, g.key))
            errors.check([&] { out[g.key] = checked(*spec, g, step); });
        else
            others.push_back(&g);
    }
    for (const auto& ps : def.params) {
        if (!out.count(ps.name) && !ps.default_value.empty()) out[ps.name] = ps.default_value;
        if (ps.required && !out.count(ps.name))
            errors.check([&] {
                throw base::ConfigError(step_pos, "step '" + step + "' needs the parameter '" + ps.name + "'" +
                                                      (ps.doc.empty() ? "" : " (" + ps.doc + ")"));
            });
    }
    if (others.empty()) {
        errors.throw_any();
        return out;
    }
    // What a step hands on may depend on its own parameters (encode's format); one given wrong counts as its
    // default here, so the rest are still judged.
    PassThrough pass;
    errors.check([&] {
        if (def.pass_through) pass = def.pass_through(out, output_ext);
    });
    for (const GivenParam* g : others) {
        if (pass.any) {
            out[g->key] = g->value;
            continue;
        }
        std::vector<const ParamSpec*> specs;
        for (const auto& o : pass.options)
            if (o.name == g->key) specs.push_back(&o);
        if (!specs.empty()) {
            errors.check([&] { out[g->key] = checked_option(specs, *g, step); });
            continue;
        }
        std::vector<std::string> valid;
        for (const auto& ps : def.params) valid.push_back(ps.name);
        for (const auto& o : pass.options)
            if (std::find(valid.begin(), valid.end(), o.name) == valid.end()) valid.push_back(o.name);
        errors.check([&] {
            throw base::ConfigError(
                g->key_pos, valid.empty() ? "step '" + step + "' takes no parameters (got '" + g->key + "')"
                                          : base::not_one_of("parameter of step '" + step + "'", g->key, valid));
        });
    }
    errors.throw_any();
    return out;
}

} // namespace af::steps
