#!/usr/bin/env bash
# gpu_sanitize.sh LOGDIR [gpu_sweep.py options]   (on a machine with a GPU)
#
# The CUDA suite under compute-sanitizer: builds build/cuda (make cuda),
# then runs every test labelled gpu under memcheck (--leak-check full),
# racecheck, synccheck and initcheck, one log per tool and test in
# LOGDIR/<tool>/<test>.log, and prints a summary table (also in
# LOGDIR/summary.txt).  The soak test runs 10^4 cycles under memcheck
# (2000 under the other tools; --soak-cycles N to change); the large
# test (2^31 elements) is left out.  The
# deliberate out-of-memory reports of test_memory and test_gemm
# --fill-device are recognised by the names of the functions that make
# them (test_memory_deliberate_oom, test_gemm_deliberate_oom), not by
# count; any other report fails.  Exit status 0 only if every run is clean.
#
#   bash tests/gpu_sanitize.sh build/sanitize-logs
#   bash tests/gpu_sanitize.sh logs --tools memcheck --tests 'memory|soak'
set -euo pipefail
logdir=${1:?usage: gpu_sanitize.sh LOGDIR [--tools LIST] [--tests REGEX] [--soak-cycles N]}
shift
cd "$(dirname "$0")/.."
command -v compute-sanitizer >/dev/null 2>&1 || export PATH="$PATH:/usr/local/cuda/bin"
make cuda
mkdir -p "$logdir"
{
    echo "date: $(date -u +%Y-%m-%dT%H:%MZ)"
    echo "commit: $(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
    nvidia-smi -L 2>/dev/null || true
    compute-sanitizer --version 2>/dev/null | tail -1 || true
} | tee "$logdir/machine.txt"
exec python3 tests/sanitize/gpu_sweep.py build/cuda "$logdir" "$@"
