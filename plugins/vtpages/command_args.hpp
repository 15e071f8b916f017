// Arguments of one `pages` subcommand: positionals plus the --flags it declares.
#pragma once

#include "assetforge/plugin.hpp"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace af::vtpages {

class CommandArgs {
  public:
    // `valued` flags take the next argument; `switches` take none. Anything else
    // starting with "--" is a usage error naming the accepted flags.
    CommandArgs(const std::vector<std::string>& argv, std::set<std::string> valued, std::set<std::string> switches)
        : valued_(std::move(valued)), switches_(std::move(switches)) {
        switches_.insert("--json");
        for (size_t i = 0; i < argv.size(); ++i) {
            const std::string& a = argv[i];
            if (a == "-y" && switches_.count("--overwrite")) {
                values_["--overwrite"] = ""; // convert's short form
            } else if (a.rfind("--", 0) != 0 || a == "--") {
                pos.push_back(a);
            } else if (valued_.count(a)) {
                if (i + 1 >= argv.size()) sdk::usage(a + " needs a value");
                values_[a] = argv[++i];
            } else if (switches_.count(a)) {
                values_[a] = "";
            } else {
                std::string list;
                for (auto& f : valued_) list += " " + f + " V";
                for (auto& f : switches_) list += " " + f;
                sdk::usage("unknown option " + a + "; accepted:" + list);
            }
        }
    }
    std::vector<std::string> pos;
    bool has(const std::string& f) const { return values_.count(f) != 0; }
    bool json() const { return has("--json"); }
    std::optional<std::string> value(const std::string& f) const {
        auto it = values_.find(f);
        return it == values_.end() ? std::nullopt : std::optional(it->second);
    }
    std::string required(const std::string& f) const {
        auto v = value(f);
        if (!v) sdk::usage(f + " is required");
        return *v;
    }
    void need_positionals(size_t n, const char* synopsis) const {
        if (pos.size() != n) sdk::usage(std::string("usage: pages ") + synopsis);
    }
    static long long integer(const std::string& s, const char* what, long long lo, long long hi) {
        char* end = nullptr;
        long long v = strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end || v < lo || v > hi)
            sdk::usage(sdk::format("%s: expected an integer in [%lld, %lld], got '%s'", what, lo, hi, s.c_str()));
        return v;
    }

  private:
    std::set<std::string> valued_, switches_;
    std::map<std::string, std::string> values_;
};

} // namespace af::vtpages
