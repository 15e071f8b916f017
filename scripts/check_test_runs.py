#!/usr/bin/env python3
"""Holds a ctest run to the Catch2 cases it was meant to run (scripts/test.sh calls it after ctest).

    scripts/check_test_runs.py [--all] BUILD_DIR

Run it right after ctest: it reads ctest's log of the last run (and its own `ctest --show-only` starts a new one).

Fails (exit 1) when
- a Catch2 executable lists a case that has no CTest entry, or an entry names no listed case (discovery split or
  mangled a name: a ';' once turned 33 cases into 66 entries that ran nothing and passed);
- an entry (LABELS catch, see af_discover_tests) that ran did not run exactly one test case, per its own summary
  line in Testing/Temporary/LastTest.log;
- the run covered every entry, and the cases executed differ from the cases listed;
- no Catch2 entry ran at all, or (--all: the run was meant to be the whole suite) some entry did not run.
"""
import collections
import json
import os
import re
import subprocess
import sys


def ctest_entries(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"], check=True, capture_output=True,
                         text=True).stdout
    entries = []
    for t in json.loads(out)["tests"]:
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        labels = props.get("LABELS", [])
        if "catch" in labels and t.get("command"):
            entries.append((t["name"], t["command"]))
    return entries


def listed_cases(exe):
    r = subprocess.run([exe, "--list-test-names-only"], capture_output=True, text=True)
    return [line.strip() for line in r.stdout.splitlines() if line.strip()]


SUMMARY = re.compile(r"All tests passed \(\d+ assertions? in (\d+) test cases?\)|test cases:\s+(\d+)|No tests ran")


def cases_run(build):
    """Entry name -> test cases its last run executed, from ctest's log of the last run."""
    log = os.path.join(build, "Testing", "Temporary", "LastTest.log")
    if not os.path.exists(log):
        return {}
    ran = {}
    name = None
    output = []
    with open(log, errors="replace") as f:
        for line in f:
            m = re.match(r'^"(.*)" start time:', line)
            if m:
                name, output = m.group(1), []
                continue
            m = re.match(r'^"(.*)" end time:', line)
            if m and name is not None:
                text = "".join(output)
                counts = []
                for s in SUMMARY.finditer(text):
                    counts.append(int(s.group(1) or s.group(2) or 0))
                # The summary is the last one printed (a test may print Catch-like text of its own before it).
                ran[name] = counts[-1] if counts else None
                name = None
                continue
            if name is not None:
                output.append(line)
    return ran


def main():
    args = sys.argv[1:]
    whole = "--all" in args
    args = [a for a in args if a != "--all"]
    if len(args) != 1:
        sys.exit(__doc__)
    build = args[0]
    ran = cases_run(build)  # first: `ctest --show-only` below starts a new LastTest.log
    entries = ctest_entries(build)
    by_exe = collections.defaultdict(list)
    for name, cmd in entries:
        by_exe[cmd[0]].append((name, cmd[1] if len(cmd) > 1 else ""))
    problems = []
    listed_total = 0
    for exe, items in sorted(by_exe.items()):
        cases = listed_cases(exe)
        listed_total += len(cases)
        if len(cases) != len(items):
            problems.append(f"{os.path.basename(exe)}: lists {len(cases)} test cases, CTest has {len(items)} entries")
        # The name an entry passes must be a listed case once Catch's escapes are undone.
        wanted = set(cases)
        for entry, arg in items:
            spec = re.sub(r"\\(.)", r"\1", arg)
            if spec not in wanted:
                problems.append(f"{entry}: its test spec '{arg}' names no case {os.path.basename(exe)} lists")
    catch_names = {name for name, _ in entries}
    executed = 0
    for name in sorted(catch_names & ran.keys()):
        n = ran[name]
        if n != 1:
            problems.append(f"{name}: ran {'no summary' if n is None else n} test cases, not 1")
        else:
            executed += 1
    covered = catch_names <= ran.keys()
    print(f"check_test_runs: {len(entries)} Catch2 entries for {listed_total} listed cases in {len(by_exe)} "
          f"executables; {len(catch_names & ran.keys())} ran, {executed} ran exactly one case")
    if not catch_names & ran.keys():
        problems.append("no Catch2 entry ran in ctest's last run (run ctest first)")
    elif whole and not covered:
        missing = sorted(catch_names - ran.keys())
        problems.append(f"{len(missing)} entries did not run, e.g. {missing[0]}")
    if covered and executed != listed_total:
        problems.append(f"the run covered every entry: {executed} cases executed, {listed_total} listed")
    for p in problems:
        print("check_test_runs: " + p, file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
