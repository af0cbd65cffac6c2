#!/usr/bin/env python3
"""gpu_sweep.py - compute-sanitizer over duo's CUDA test suite.

Run by tests/gpu_sanitize.sh (read that first).  For every CTest test of a
CUDA build labelled "gpu" (the suites, the apps' checks, the README
example, the soak test) but those labelled "fault" (test_fault makes a
kernel fault on purpose) and every tool (memcheck, racecheck, synccheck,
initcheck) it runs the test's own command line and environment under

    compute-sanitizer --tool TOOL --log-file LOGDIR/TOOL/TEST.log ...

(memcheck with --leak-check full), and counts the errors the log reports.
A report is *expected* only when it is one of the deliberate
out-of-memory failures: a "Program hit cudaErrorMemoryAllocation" report
whose host backtrace passes through test_memory_deliberate_oom() (which
asks for 2^62 bytes and more on purpose) or test_gemm_deliberate_oom()
(which fills device memory to check that gemm does without its packing
workspace).  They are matched by those names, never by counting, so a
new out-of-memory report anywhere else still fails the sweep.

A run passes when the test itself passes (exit 0) and the log has no
unexpected error.  Prints a table and writes it to LOGDIR/summary.txt;
exits 1 if any run failed.

    gpu_sweep.py BUILD_DIR LOGDIR [--tools memcheck,racecheck,...]
                 [--tests REGEX] [--timeout S] [--soak-cycles N]
    gpu_sweep.py --classify LOG...   classify existing logs (no GPU), for
                                     the test of this script
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import time

TOOLS = ["memcheck", "racecheck", "synccheck", "initcheck"]
EXPECTED_FRAMES = ("test_memory_deliberate_oom", "test_gemm_deliberate_oom")

PREFIX = "========= "
# Lines at the start of a report that are not errors.
NOT_ERRORS = re.compile(
    r"^(COMPUTE-SANITIZER|ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|"
    r"Target application returned|Error: process didn't terminate|"
    r"This tool|Note:|Warning: .*(deprecated|not supported))")


def blocks(text):
    """The log's reports: lists of lines, each starting at an unindented
    '========= <message>' line and taking the indented lines after it."""
    out, cur = [], None
    for line in text.splitlines():
        if not line.startswith("========="):
            continue
        body = line[len("========="):]
        if body.strip() == "":
            cur = None
            continue
        if body.startswith(" ") and not body.startswith("  "):
            msg = body[1:]
            if NOT_ERRORS.match(msg):
                cur = None
                continue
            cur = [msg]
            out.append(cur)
        elif cur is not None:
            cur.append(body.strip())
    return out


def is_expected(block):
    head = block[0]
    return (head.startswith("Program hit cudaErrorMemoryAllocation")
            and any(frame in line for line in block[1:]
                    for frame in EXPECTED_FRAMES))


def classify(text):
    """(reported, expected, unexpected_heads, summary_found)."""
    m = re.findall(r"ERROR SUMMARY: (\d+) error", text)
    r = re.findall(r"RACECHECK SUMMARY: \d+ hazards? displayed \((\d+) "
                   r"errors?, (\d+) warnings?\)", text)
    reported = None
    if m:
        reported = int(m[-1])
    if r:
        reported = max(reported or 0, int(r[-1][0]))
    if "terminated before first instrumented API call" in text:
        return 0, 0, [], True  # no CUDA call at all (a usage error)
    bl = blocks(text)
    expected = [b for b in bl if is_expected(b)]
    unexpected = [b[0] for b in bl if not is_expected(b)]
    if reported is None:
        return None, len(expected), unexpected, False
    # Errors the summary counts but the log did not print (print limit)
    # cannot be shown to be expected: count them as unexpected.
    hidden = reported - len(expected) - len(unexpected)
    if hidden > 0:
        unexpected += ["(%d more not printed)" % hidden]
    return reported, len(expected), unexpected, True


def ctest_tests(build, regex):
    # -L takes a regular expression: anchor it, or "nogpu-cuda" matches.
    cmd = ["ctest", "--show-only=json-v1", "-L", "^gpu$"]
    if regex:
        cmd += ["-R", regex]
    data = json.loads(subprocess.run(cmd, cwd=build, check=True,
                                     capture_output=True, text=True).stdout)
    tests = []
    for t in data.get("tests", []):
        props = {p["name"]: p["value"] for p in t.get("properties", [])}
        env = props.get("ENVIRONMENT", [])
        if isinstance(env, str):
            env = [env]
        labels = props.get("LABELS", [])
        # fault: the fault is deliberate; large: 2^31 elements would take
        # hours under a sanitizer.
        labels = [labels] if isinstance(labels, str) else labels
        if "fault" in labels or "large" in labels:
            continue
        pass_re = props.get("PASS_REGULAR_EXPRESSION", [])
        if isinstance(pass_re, str):
            pass_re = [pass_re]
        tests.append({"name": t["name"], "command": t["command"],
                      "env": env,
                      "cwd": props.get("WORKING_DIRECTORY", build),
                      "pass_re": pass_re,
                      "will_fail": bool(props.get("WILL_FAIL", False))})
    return tests


def test_passed(t, rc, out):
    """The test's own verdict, as CTest would give it: a pass regular
    expression on its output when it has one (exit status ignored), else
    exit 0 (non-zero with WILL_FAIL)."""
    if rc == "timeout":
        return False
    if t["pass_re"]:
        text = open(out, errors="replace").read()
        return any(re.search(r, text) for r in t["pass_re"])
    return (rc != 0) if t["will_fail"] else (rc == 0)


def run_sweep(args):
    san = shutil.which("compute-sanitizer") or \
        "/usr/local/cuda/bin/compute-sanitizer"
    if not os.path.exists(san):
        sys.exit("gpu_sweep: compute-sanitizer not found (CUDA toolkit's "
                 "bin/ on PATH)")
    tools = args.tools.split(",")
    for t in tools:
        if t not in TOOLS:
            sys.exit("gpu_sweep: --tools: '%s' is not one of %s"
                     % (t, ",".join(TOOLS)))
    tests = ctest_tests(args.build, args.tests)
    if not tests:
        sys.exit("gpu_sweep: no tests labelled gpu in %s" % args.build)
    rows, failed = [], 0
    for tool in tools:
        os.makedirs(os.path.join(args.logdir, tool), exist_ok=True)
        for t in tests:
            log = os.path.join(args.logdir, tool, t["name"] + ".log")
            out = os.path.join(args.logdir, tool, t["name"] + ".out")
            cmd = [san, "--tool", tool, "--log-file", log,
                   "--print-limit", "10000"]
            if tool == "memcheck":
                cmd += ["--leak-check", "full"]
            if tool == "racecheck":
                cmd += ["--racecheck-report", "all"]
            env = dict(os.environ)
            for kv in t["env"]:
                k, _, v = kv.partition("=")
                env[k] = v
            if tool != "memcheck":
                # racecheck and synccheck serialise every block: tests
                # that honour it shorten their repeat loops.
                env["DUO_TEST_QUICK"] = "1"
            if t["name"] == "soak":
                # memcheck (with the leak check) gets the most cycles.
                env["DUO_SOAK_CYCLES"] = str(
                    args.soak_cycles if tool == "memcheck"
                    else max(1, args.soak_cycles // 5))
                if tool == "initcheck":
                    # initcheck keeps records of every allocation in the
                    # process: measured on an H100, the host heap grew by
                    # 2.7 KB a cycle and free device memory fell by
                    # 680 MB, so the soak's baselines measure the tool.
                    # memcheck --leak-check full checks the leaks.
                    env["DUO_SOAK_SKIP_USAGE"] = (
                        "under initcheck, whose own records grow the heap "
                        "and device memory; memcheck checks leaks")
            start = time.time()
            try:
                with open(out, "w") as f:
                    rc = subprocess.run(cmd + t["command"], cwd=t["cwd"],
                                        env=env, stdout=f,
                                        stderr=subprocess.STDOUT,
                                        timeout=args.timeout).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            secs = time.time() - start
            text = open(log, errors="replace").read() \
                if os.path.exists(log) else ""
            reported, expected, unexpected, ok = classify(text)
            if rc == 77:
                verdict = "SKIP (no GPU)"
            elif not test_passed(t, rc, out):
                verdict = "FAIL (test exit %s; %s)" % (rc, out)
            elif not ok:
                verdict = "FAIL (no summary in %s)" % log
            elif unexpected:
                verdict = "FAIL (%d: %s)" % (len(unexpected),
                                             unexpected[0][:60])
            else:
                verdict = "PASS"
            failed += not (verdict.startswith("PASS"))
            rows.append((tool, t["name"], reported if reported is not None
                         else "-", expected, len(unexpected),
                         "%.0f" % secs, verdict))
            print("%-10s %-28s %s" % (tool, t["name"], verdict), flush=True)
    head = ("tool", "test", "reported", "expected", "unexpected", "s",
            "verdict")
    lines = ["%-10s %-28s %8s %8s %10s %6s  %s" % head,
             "%-10s %-28s %8s %8s %10s %6s  %s" % tuple(
                 "-" * len(h) for h in head)]
    lines += ["%-10s %-28s %8s %8s %10s %6s  %s" % r for r in rows]
    lines.append("")
    lines.append("gpu_sweep: %d runs, %d failed; expected = the "
                 "deliberate out-of-memory reports (matched by %s in the "
                 "backtrace)" % (len(rows), failed,
                                 " or ".join(EXPECTED_FRAMES)))
    table = "\n".join(lines)
    print("\ngpu_sweep summary\n" + table)
    with open(os.path.join(args.logdir, "summary.txt"), "w") as f:
        f.write(table + "\n")
    return 1 if failed else 0


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--classify":
        bad = 0
        for path in sys.argv[2:]:
            reported, expected, unexpected, ok = classify(
                open(path, errors="replace").read())
            print("%s: reported=%s expected=%d unexpected=%d%s" % (
                os.path.basename(path), reported, expected, len(unexpected),
                "" if ok else " (no summary)"))
            for u in unexpected:
                print("  unexpected: %s" % u)
            bad += (not ok) or bool(unexpected)
        return 1 if bad else 0
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("build")
    p.add_argument("logdir")
    p.add_argument("--tools", default=",".join(TOOLS))
    p.add_argument("--tests", default="")
    p.add_argument("--timeout", type=int, default=3600)
    p.add_argument("--soak-cycles", type=int, default=10000)
    return run_sweep(p.parse_args())


if __name__ == "__main__":
    sys.exit(main())
