#!/usr/bin/env python3
"""Run tools/profile_diff.py and check its exit status and output.

    profile_diff_check.py TOOL --rc N [--out REGEX]... [--err REGEX]...
                          [--no-out REGEX]... -- ARGS...

Runs `python TOOL ARGS...` (the same interpreter as this script) and
fails, showing what the tool printed, unless it exits with N, every --out
regex is found in its stdout, every --err regex in its stderr and no
--no-out regex in its stdout.  Used by the profile_diff_* CTest tests.
"""
import argparse
import re
import subprocess
import sys


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        print("profile_diff_check.py: expected -- before the tool's "
              "arguments", file=sys.stderr)
        return 2
    cut = argv.index("--")
    ap = argparse.ArgumentParser(prog="profile_diff_check.py")
    ap.add_argument("tool")
    ap.add_argument("--rc", type=int, required=True)
    ap.add_argument("--out", action="append", default=[])
    ap.add_argument("--err", action="append", default=[])
    ap.add_argument("--no-out", action="append", default=[])
    args = ap.parse_args(argv[:cut])
    cmd = [sys.executable, args.tool] + argv[cut + 1:]
    run = subprocess.run(cmd, capture_output=True, text=True)
    problems = []
    if run.returncode != args.rc:
        problems.append("exit status %d, expected %d"
                        % (run.returncode, args.rc))
    for pattern in args.out:
        if not re.search(pattern, run.stdout, re.MULTILINE):
            problems.append("stdout lacks /%s/" % pattern)
    for pattern in args.err:
        if not re.search(pattern, run.stderr, re.MULTILINE):
            problems.append("stderr lacks /%s/" % pattern)
    for pattern in args.no_out:
        if re.search(pattern, run.stdout, re.MULTILINE):
            problems.append("stdout has /%s/" % pattern)
    print("$ " + " ".join(cmd))
    print("--- stdout\n" + run.stdout + "--- stderr\n" + run.stderr + "---")
    if problems:
        for p in problems:
            print("FAIL: " + p)
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
