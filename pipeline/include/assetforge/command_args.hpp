// Plugin commands (`assetforge NAME SUBCOMMAND …`): the arguments of one
// subcommand and the af_command run function around a C++ entry. Header-only.
//
//   int run_tool(const af::sdk::CommandIo& io, const std::vector<std::string>& argv) {
//       af::sdk::CommandArgs a("tool", argv, {"--out"}, {"--json"});   // argv[0] is the subcommand
//       a.need_positionals(2, "convert IN --out OUT [--json]");
//       …
//   }
//   .run = af::sdk::run_command<run_tool>,                             // in the af_command spec
#pragma once

#include "assetforge/error.hpp"
#include "assetforge/plugin_abi.h"

#include <cstdlib>
#include <iostream>
#include <map>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace af::sdk {

// Where a command writes: the host (may be null: work then runs serially),
// its report and its diagnostics.
struct CommandIo {
    const af_host* host;
    std::ostream& out;
    std::ostream& err;
};

// Positionals, `--flag VALUE` pairs and switches of one subcommand.
class CommandArgs {
  public:
    // `valued` flags take the next argument and may repeat; `switches` take
    // none. "-y" stands for "--overwrite" where that switch is accepted, as in
    // `convert`; "--" is a positional. Any other argument starting with "--" is
    // a usage error naming the accepted flags. `command` begins usage lines.
    CommandArgs(std::string command, const std::vector<std::string>& argv, std::set<std::string> valued,
                std::set<std::string> switches)
        : command_(std::move(command)), valued_(std::move(valued)), switches_(std::move(switches)) {
        for (size_t i = 0; i < argv.size(); ++i) {
            const std::string& a = argv[i];
            if (a == "-y" && switches_.count("--overwrite")) {
                values_["--overwrite"];
            } else if (a.rfind("--", 0) != 0 || a == "--") {
                pos.push_back(a);
            } else if (valued_.count(a)) {
                if (i + 1 >= argv.size()) usage(a + " needs a value");
                values_[a].push_back(argv[++i]);
            } else if (switches_.count(a)) {
                values_[a];
            } else {
                std::string list;
                for (auto& f : valued_) list += " " + f + " V";
                for (auto& f : switches_) list += " " + f;
                usage("unknown option " + a + "; accepted:" + list);
            }
        }
    }

    std::vector<std::string> pos;

    bool has(const std::string& flag) const { return values_.count(flag) != 0; }
    // The last value given for `flag`.
    std::optional<std::string> value(const std::string& flag) const {
        auto it = values_.find(flag);
        if (it == values_.end() || it->second.empty()) return std::nullopt;
        return it->second.back();
    }
    // Every value given for `flag`, in order; empty when absent.
    const std::vector<std::string>& values(const std::string& flag) const {
        static const std::vector<std::string> kNone;
        auto it = values_.find(flag);
        return it == values_.end() ? kNone : it->second;
    }
    std::string required(const std::string& flag) const {
        auto v = value(flag);
        if (!v) usage(flag + " is required");
        return *v;
    }
    // `flag` given exactly once, else the usage line.
    std::string once(const std::string& flag, const char* synopsis) const {
        if (values(flag).size() != 1) usage_line(synopsis);
        return values(flag).front();
    }
    void need_positionals(size_t n, const char* synopsis) const {
        if (pos.size() != n) usage_line(synopsis);
    }
    // "usage: COMMAND SYNOPSIS" as a usage error.
    [[noreturn]] void usage_line(const char* synopsis) const { usage("usage: " + command_ + " " + synopsis); }

    static long long integer(const std::string& s, const char* what, long long lo, long long hi) {
        char* end = nullptr;
        long long v = strtoll(s.c_str(), &end, 10);
        if (s.empty() || *end || v < lo || v > hi)
            usage(format("%s: expected an integer in [%lld, %lld], got '%s'", what, lo, hi, s.c_str()));
        return v;
    }

  private:
    std::string command_;
    std::set<std::string> valued_, switches_;
    std::map<std::string, std::vector<std::string>> values_;
};

// An af_command's run function around `Fn`: the host passes the command's
// name first, then its arguments; Fn gets the arguments and std::cout/cerr.
// Fn reports its own errors; anything escaping it is an internal error, as
// no exception may cross the C boundary.
template <int (*Fn)(const CommandIo&, const std::vector<std::string>&)>
int32_t run_command(const af_host* host, int32_t argc, const char* const* argv) {
    std::vector<std::string> args;
    for (int32_t i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    try {
        return Fn({host, std::cout, std::cerr}, args);
    } catch (...) {
        std::cerr << (argc > 0 && argv[0] ? argv[0] : "command") << ": internal error\n";
        return 1;
    }
}

} // namespace af::sdk
