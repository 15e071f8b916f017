#!/usr/bin/env python3
"""Runs a command and writes the CPU-seconds it and every process it waited for used (user + system) to a file.

    scripts/cpu_time.py OUT_FILE command args…

The exit status is the command's. A build's CPU time does not depend on what else the machine runs, unlike the
wall time of its steps (a busy machine doubles those), so the compile-cost fence reads this figure.
"""
import resource
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    status = subprocess.run(sys.argv[2:]).returncode
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    with open(sys.argv[1], "w") as f:
        f.write(f"{used.ru_utime + used.ru_stime:.1f}\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
