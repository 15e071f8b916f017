// `--report build.xml`: the build as JUnit XML, one test case per action, so
// a CI system (GitLab, Jenkins, GitHub test reporters) lists failures natively.
#pragma once

#include "base/build_result.hpp"

#include <string>

namespace af::report {

// A test suite per job; each action a test case named by its input: failed
// actions carry <failure> with the step and message, actions that did not run
// <skipped>. Removed stale outputs are not test cases.
std::string junit_xml(const base::BuildSummary& s, double seconds);

} // namespace af::report
