#!/usr/bin/env bash
# check_apps.sh - what the default `make` target runs: build the best
# backend this machine can run, run each app with --check, and print one
# summary table.
#
#   ./src/apps/check_apps.sh          (or just: make)
#
# Backend: cuda when nvcc is on PATH and `nvidia-smi -L` lists a GPU,
# openmp otherwise.  It is built with `${MAKE:-make} <backend>` into
# build/<backend>.  Exits non-zero, naming the runs, if any check failed
# or any app did not finish.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

# --- pick the backend ----------------------------------------------------
backend=openmp
reason="no CUDA toolkit (nvcc) on PATH"
if command -v nvcc >/dev/null 2>&1; then
    reason="nvcc found, but nvidia-smi -L lists no GPU"
    if command -v nvidia-smi >/dev/null 2>&1 &&
        nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
        backend=cuda
        reason="nvcc found and nvidia-smi -L lists a GPU"
    fi
fi
echo "check_apps: backend $backend ($reason)"

# --- build ------------------------------------------------------------------
# Word splitting is wanted: MAKE may carry options.
# shellcheck disable=SC2086
${MAKE:-make} --no-print-directory "$backend"

bin="build/$backend/bin"
for app in duo-saxpy duo-reduce duo-gemm duo-lens; do
    if [[ ! -x "$bin/$app" ]]; then
        echo "check_apps: $bin/$app was not built (DUO_BUILD_APPS=OFF?)" >&2
        exit 1
    fi
done

# --- run ------------------------------------------------------------------
# Each run: the app and its arguments; --check is added.
runs=(
    "duo-saxpy"
    "duo-reduce"
    "duo-gemm"
    "duo-gemm 513 257 129"
    "duo-lens"
)

rows=()     # "label|backend|size|time|rate|check", one per run
failed=()   # "label: why"

# The value of key=... on the result line ("" when absent).
field() { # line key
    local token
    for token in $1; do
        if [[ "$token" == "$2="* ]]; then
            printf '%s' "${token#*=}"
            return
        fi
    done
}

for run in "${runs[@]}"; do
    read -r -a words <<<"$run"
    app=${words[0]}
    echo
    echo "check_apps: $bin/$run --check"
    rc=0
    output=$("$bin/$app" "${words[@]:1}" --check 2>&1) || rc=$?
    printf '%s\n' "$output"

    result=$(grep -m1 "^$app: backend=" <<<"$output" || true)
    check=$(grep -m1 '^check: ' <<<"$output" || true)
    check=${check#check: }

    be=$(field "$result" backend)
    size=$(field "$result" size)
    ms=$(field "$result" median_ms)
    rate=""
    for token in $result; do
        if [[ "$token" == *"/s="* ]]; then
            rate="${token#*=} ${token%%=*}"
        fi
    done

    status=${check%% *}
    if [[ $rc -ne 0 || "$status" != PASS ]]; then
        if [[ -z "$check" ]]; then
            check="ERROR (exit $rc, no check line)"
        elif [[ $rc -ne 0 && "$status" == PASS ]]; then
            check="PASS, but exit $rc"
        fi
        failed+=("$run: $check")
        status=${check%% *}
        [[ "$status" == PASS* ]] && status=ERROR
    fi
    rows+=("$run|${be:--}|${size:--}|${ms:--}|${rate:--}|$status")
done

# --- summary ---------------------------------------------------------------
echo
echo "check_apps summary"
fmt='%-22s %-8s %-14s %12s %18s  %s\n'
# shellcheck disable=SC2059
printf "$fmt" app backend size "median ms" rate check
# shellcheck disable=SC2059
printf "$fmt" ---------------------- -------- -------------- ------------ \
    ------------------ -----
for row in "${rows[@]}"; do
    IFS='|' read -r label be size ms rate status <<<"$row"
    # shellcheck disable=SC2059
    printf "$fmt" "$label" "$be" "$size" "$ms" "$rate" "$status"
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo
    echo "check_apps: ${#failed[@]} of ${#runs[@]} runs FAILED:" >&2
    for f in "${failed[@]}"; do
        echo "  $f" >&2
    done
    exit 1
fi
echo
echo "check_apps: all ${#runs[@]} runs passed on $backend"
