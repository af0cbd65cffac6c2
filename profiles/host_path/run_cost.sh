#!/usr/bin/env bash
# run_cost.sh OUTDIR [ROUNDS]
#
# What the host path of a CUDA build costs against the openmp build:
# every app at a benchmark size, run from build/openmp and from
# build/cuda with DUO_DEVICE=cpu, the two alternating for ROUNDS rounds
# (default 5).  Each run reports the median of its --reps 5; the table
# gives the median over the rounds and the ratio cuda-host / openmp
# (the target is <= 1.05).  Builds both first (make openmp cuda).
# OUTDIR/cost.md is the table, OUTDIR/runs.log every run's output.
#
#   OMP_NUM_THREADS=2 bash profiles/host_path/run_cost.sh build/host-cost
set -euo pipefail
out=${1:?usage: run_cost.sh OUTDIR [ROUNDS]}
rounds=${2:-5}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
${MAKE:-make} --no-print-directory openmp cuda >/dev/null
mkdir -p "$out"
log="$out/runs.log"
: >"$log"

runs=(
    "duo-saxpy|16000057 --seed 7"
    "duo-reduce|16000057 --seed 7"
    "duo-reduce|4000037 --type f64 --op argmin --seed 7"
    "duo-gemm|511 509 257 --seed 7"
    "duo-julia|1600 1200"
    "duo-primes|4000000"
    "duo-pi|33554432 --seed 7"
    "duo-heat|1024 1024 --steps 100"
    "duo-nearest|8191 --algo tiled --seed 7"
    "duo-matmul|513 511 257 --seed 7"
    "duo-reduce-steps|4194301 --seed 7"
    "duo-cg|256 --seed 7"
    "duo-bicgstab|192 160 --seed 7"
    "duo-staged|16000057 --seed 7"
)

# median_ms of one run; the run's whole output goes to the log.
run_ms() {
    local text
    # Word splitting of $2 is wanted.
    # shellcheck disable=SC2086
    text=$(env "${@:3}" "$1" $2 --reps 5 2>&1) || {
        echo "$text" >>"$log"; echo "run_cost: $1 $2 failed" >&2; exit 1; }
    echo "$text" >>"$log"
    sed -n 's/.* median_ms=\([^ ]*\).*/\1/p' <<<"$text" | head -n 1
}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

{
    echo "# The CUDA build's host path against the openmp build"
    echo
    echo "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc) cores visible)"
    echo "- OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}; $rounds rounds, the builds alternating; each run the median of --reps 5"
    echo "- command: bash profiles/host_path/run_cost.sh $*"
    echo
    echo "| app | arguments | openmp ms | cuda-host ms | cuda-host / openmp |"
    echo "|---|---|---:|---:|---:|"
} >"$out/cost.md"
for entry in "${runs[@]}"; do
    IFS='|' read -r app args <<<"$entry"
    a=() b=()
    for ((r = 0; r < rounds; ++r)); do
        a+=("$(run_ms "build/openmp/bin/$app" "$args" DUO_DEVICE=auto)")
        b+=("$(run_ms "build/cuda/bin/$app" "$args" DUO_DEVICE=cpu)")
    done
    ma=$(printf '%s\n' "${a[@]}" | median)
    mb=$(printf '%s\n' "${b[@]}" | median)
    ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN { printf "%.3f", b / a }')
    echo "| $app | $args | $ma | $mb | $ratio |" | tee -a "$out/cost.md"
done
