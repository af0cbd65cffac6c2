#!/usr/bin/env bash
# overhead.sh [BACKEND] [REPEATS]   (BACKEND: openmp, the default, or cuda)
#
# What DUO_VALIDATE=1 costs: the wall time of whole runs of duo-heat
# 512^2, duo-cg 512^2 and duo-gemm 512^3 and 2048^3 (one timed
# repetition each), in the serial build, in BACKEND's build plainly and
# under DUO_VALIDATE=1, the median of REPEATS runs (default 3) of each,
# the three taken in turn.  The issue's goal: a
# validated run costs no more than the serial build's run plus the copies
# of each checked operation's arrays (on a CPU build the check reruns
# every operation on one thread, so "serial + plain" is its floor).  The
# copies' seconds come from the summary line of one more validated run
# ("... s of them in copies").
# Builds build/serial and build/BACKEND if missing; prints a Markdown
# table, which profiles/validate/overhead-<backend>.md records.
set -euo pipefail
cd "$(dirname "$0")/../.."
backend=${1:-openmp}
repeats=${2:-3}
for b in serial "$backend"; do
    [ -x "build/$b/bin/duo-heat" ] || make "$b" >/dev/null
done

# duo-gemm twice: at 512^3 its two products take milliseconds, so the
# run is mostly process and CUDA start-up; at 2048^3 they dominate it.
apps=("duo-heat 512 512 --reps 1" "duo-cg 512 512 --reps 1"
      "duo-gemm 512 --reps 1" "duo-gemm 2048 --reps 1")

# wall seconds of one run of: env... build/B/bin/APP ARGS
seconds() {
    local t0 t1
    t0=$(date +%s.%N)
    env "$@" >/dev/null 2>&1
    t1=$(date +%s.%N)
    awk -v a="$t1" -v b="$t0" 'BEGIN { print a - b }'
}

# the median of the numbers on stdin
median() {
    sort -g | sed -n "$(( (repeats + 1) / 2 ))p"
}

echo "| app | serial s | $backend s | $backend validated s | copies s | validated / plain | validated / (serial + plain) | validated / (serial + plain + copies) |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
for a in "${apps[@]}"; do
    read -r app args <<<"$a"
    # The three runs in turn, `repeats` times: a drift of the machine
    # over the minute touches all three alike.
    ts=() tp=() tv=()
    for _ in $(seq "$repeats"); do
        # shellcheck disable=SC2086
        ts+=("$(seconds DUO_VALIDATE=0 "build/serial/bin/$app" $args)")
        # shellcheck disable=SC2086
        tp+=("$(seconds DUO_VALIDATE=0 "build/$backend/bin/$app" $args)")
        # shellcheck disable=SC2086
        tv+=("$(seconds DUO_VALIDATE=1 "build/$backend/bin/$app" $args)")
    done
    s=$(printf '%s\n' "${ts[@]}" | median)
    p=$(printf '%s\n' "${tp[@]}" | median)
    v=$(printf '%s\n' "${tv[@]}" | median)
    # shellcheck disable=SC2086
    c=$(DUO_VALIDATE=1 "build/$backend/bin/$app" $args 2>&1 >/dev/null |
        sed -n 's/.*, \([0-9.]*\) s of them in copies.*/\1/p' | tail -n 1)
    printf '| %s | %.3f | %.3f | %.3f | %.3f | %.2f | %.2f | %.2f |\n' \
        "$a" "$s" "$p" "$v" "${c:-0}" \
        "$(awk -v v="$v" -v p="$p" 'BEGIN { print v / p }')" \
        "$(awk -v v="$v" -v s="$s" -v p="$p" 'BEGIN { print v / (s + p) }')" \
        "$(awk -v v="$v" -v s="$s" -v p="$p" -v c="${c:-0}" \
               'BEGIN { print v / (s + p + c) }')"
done
