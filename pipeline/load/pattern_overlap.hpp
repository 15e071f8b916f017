// Can an input glob ever match a path an output template can produce?
// Decided on the patterns themselves (no files needed), so a build can
// refuse, before anything runs, a job that would read another job's outputs
// without declaring it — even on the first build, when none exist yet.
#pragma once

#include "base/output_template.hpp"

#include <string>

namespace af::load {

// `glob`: an absolute pattern ("/p/src/**/*.png", braces allowed).
// `tpl`'s literal text must make it absolute as well (the project root
// prepended). Placeholder values may hold any characters, '/' included, so
// the answer errs towards "yes". Dot-file rules are ignored (also "yes").
bool glob_may_match_template(const std::string& glob, const base::OutputTemplate& tpl);

// The same question for two globs (used by tests and for excludes).
bool globs_may_overlap(const std::string& a, const std::string& b);

} // namespace af::load
