#!/usr/bin/env bash
# run_dist_bench.sh OUTDIR [BACKEND [NP [SIZE [STEPS]]]]
#
# The distributed layer's reference run, one command, everything logged
# under OUTDIR (report.md is the summary):
#   1. make <BACKEND>-mpi (cuda on a GPU machine: NCCL is used when found)
#      and its mpi-labelled tests (1..4 ranks);
#   2. make compare-mpi: duo-heat and duo-cg on 1..4 ranks vs the serial
#      build, bit for bit;
#   3. duo-dist-bench on NP ranks: duo_dist_reduce vs MPI_Allreduce /
#      ncclAllReduce on one 8-byte value; duo_dist_reduce, _reduce_arg,
#      duo_dist_dot(s) of 2^20..2^26 f64 per rank vs the local duo call
#      plus MPI_Allreduce; halo exchange vs MPI_Sendrecv;
#   4. duo-heat strong scaling (SIZE x SIZE on 1..NP ranks) and weak
#      scaling (SIZE x SIZE per rank), STEPS steps, median of 5 runs;
#      duo-cg the same with STEPS iterations (--maxit, a tolerance never
#      reached), SIZE/2 on CPUs.
#
# Six files in OUTDIR: report.md, build.log, tests.log, compare-mpi.log,
# dist-bench.log, scaling.log (every scaling run's output, in order).
#
# DIST_COMPARE=0 in the environment skips step 2 (it builds and runs the
# serial build as well); the report says so.  DIST_CMAKE_FLAGS is passed
# to step 1's cmake: -DCMAKE_CUDA_ARCHITECTURES=90 builds for the H100
# alone (the default is "90-real;80-virtual").
#
# Defaults: BACKEND cuda if nvidia-smi lists a GPU, else serial; NP = the
# GPUs (else 2); SIZE 8192 on GPUs, 2048 on CPUs; STEPS 200 / 50.
# On the 2-GPU machine:  bash profiles/dist/run_dist_bench.sh dist-h200x2
set -uo pipefail

out=${1:?usage: $0 OUTDIR [BACKEND [NP [SIZE [STEPS]]]]}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
mkdir -p "$out"
out=$(cd "$out" && pwd)
gpus=0
if command -v nvidia-smi >/dev/null 2>&1; then
  gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU [0-9]' || true)
fi
backend=${2:-$([ "$gpus" -gt 0 ] && echo cuda || echo serial)}
np=${3:-$([ "$gpus" -gt 1 ] && echo "$gpus" || echo 2)}
size=${4:-$([ "$backend" = cuda ] && echo 8192 || echo 2048)}
steps=${5:-$([ "$backend" = cuda ] && echo 200 || echo 50)}

export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0          # no NVLink multicast
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
flags=(--oversubscribe)
if [ "$backend" = cuda ]; then flags+=(--bind-to none); fi
report="$out/report.md"
say() { echo "$*" | tee -a "$report"; }
: >"$report"

say "# duo distributed layer: $backend, $np ranks"
say ""
say "- date: $(date -u '+%Y-%m-%d %H:%M UTC'); host: $(uname -n)"
say "- cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //') ($(nproc --all) cores)"
[ "$gpus" -gt 0 ] && say "- gpus: $(nvidia-smi --query-gpu=name --format=csv,noheader | sort | uniq -c | tr -s ' ' | tr '\n' ';')"
say "- mpi: $(mpirun --version 2>/dev/null | head -n 1)"
say "- command: bash profiles/dist/run_dist_bench.sh $*"
[ -n "${DIST_CMAKE_FLAGS:-}" ] && say "- DIST_CMAKE_FLAGS: $DIST_CMAKE_FLAGS"
say ""

status=0
echo "== build" >&2
# Only what the run uses: the library, the mpi-labelled tests' programs
# and the benchmark (a full build compiles every test and tool too).
targets=(test_dist test_dist_abort duo-heat duo-cg duo-bicgstab duo-compare
         duo-dist-bench)
if ! { make mpi-deps &&
       cmake -S . -B "build/$backend-mpi" -DDUO_BACKEND="$backend" -DDUO_MPI=ON \
         ${DIST_CMAKE_FLAGS:-} &&
       cmake --build "build/$backend-mpi" -j "$(nproc)" --target "${targets[@]}"; } \
     >"$out/build.log" 2>&1; then
  say "build failed: see build.log"; exit 1
fi
grep -E "duo: (MPI|NCCL)" "$out/build.log" | sed 's/^-- /- /' | tee -a "$report"
say ""

echo "== tests" >&2
(cd "build/$backend-mpi" && ctest -L mpi --output-on-failure) >"$out/tests.log" 2>&1 || status=1
say "## Tests (ctest -L mpi)"
say ""
say "$(grep -E 'tests passed|tests failed' "$out/tests.log")"
say ""

echo "== compare-mpi" >&2
if [ "${DIST_COMPARE:-1}" = 0 ]; then
  say "## make compare-mpi: skipped (DIST_COMPARE=0)"
  say ""
else
  make compare-mpi COMPARE_MPI_ARGS="$backend 4" >"$out/compare-mpi.log" 2>&1 || status=1
  say "## make compare-mpi ($backend, 1..4 ranks vs serial)"
  say ""
  say '```'
  sed -n '/^app /,$p' "$out/compare-mpi.log" | tee -a "$report" >/dev/null
  say '```'
  say ""
fi

echo "== duo-dist-bench" >&2
say "## duo-dist-bench, $np ranks"
say ""
mpirun "${flags[@]}" -np "$np" "build/$backend-mpi/bin/duo-dist-bench" \
  >"$out/dist-bench.log" 2>&1 || status=1
grep -v '^duo-dist: ' "$out/dist-bench.log" | tee -a "$report" >/dev/null
say ""

echo "== scaling" >&2
: >"$out/scaling.log"
run_app() { # ranks app args... -> median ms
  local np_=$1 app=$2 log
  shift 2
  log=$(mktemp)
  echo "== mpirun -np $np_ $app $*" >>"$out/scaling.log"
  mpirun "${flags[@]}" -np "$np_" "build/$backend-mpi/bin/$app" "$@" \
    >"$log" 2>&1 || status=1
  cat "$log" >>"$out/scaling.log"
  sed -n 's/.* median_ms=\([^ ]*\).*/\1/p' "$log" | head -n 1
  rm -f "$log"
}
scaling() { # app n args...: strong on n x n, weak on n x (n P)
  local app=$1 n=$2 t1 tp eff p rows
  shift 2
  t1=$(run_app 1 "$app" "$n" "$n" "$@")
  say "| $app | strong | 1 | ${n}x${n} | $t1 | 1.000 |"
  for p in $(seq 2 "$np"); do
    tp=$(run_app "$p" "$app" "$n" "$n" "$@")
    eff=$(awk -v a="$t1" -v b="$tp" -v p="$p" 'BEGIN { if (b > 0) printf "%.3f", a / (p * b); else print "-" }')
    say "| $app | strong | $p | ${n}x${n} | $tp | $eff |"
  done
  for p in $(seq 2 "$np"); do
    rows=$((n * p))
    tp=$(run_app "$p" "$app" "$n" "$rows" "$@")
    eff=$(awk -v a="$t1" -v b="$tp" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }')
    say "| $app | weak | $p | ${n}x${rows} | $tp | $eff |"
  done
}
cg_size=$([ "$backend" = cuda ] && echo "$size" || echo $((size / 2)))
say "## Scaling: duo-heat $steps steps, duo-cg $steps iterations, median of 5 runs"
say ""
say "| app | kind | ranks | grid | median ms | efficiency |"
say "|---|---|---|---|---|---|"
scaling duo-heat "$size" --steps "$steps" --reps 5
scaling duo-cg "$cg_size" --maxit "$steps" --tol 1e-300 --reps 5
say ""
say "Strong efficiency = T(1) / (P T(P)); weak = T(1) / T(P) with SIZE x SIZE per rank."
say "duo-cg on 1 rank runs its graph; on several, plain calls and duo_dist_dot."
echo "run_dist_bench: report in $report (status $status)" >&2
exit $status
