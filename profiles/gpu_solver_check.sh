#!/usr/bin/env bash
# gpu_solver_check.sh - on a GPU machine, in one go: build the cuda and
# serial backends, run the CUDA suite, compute-sanitizer on the async /
# graph / reduce tests, make compare (serial vs cuda), duo-bench's reduce
# and solver groups, and duo-cg 512 512 on both builds.  Logs go to DIR.
#
#   bash profiles/gpu_solver_check.sh DIR
set -uo pipefail
out=${1:?usage: gpu_solver_check.sh DIR}
mkdir -p "$out"
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
step() { echo "== $1: $(date +%T)"; }
summary=()
run() { # name, timeout, command...
    local name=$1 limit=$2
    shift 2
    step "$name"
    if timeout "$limit" "$@" >"$out/$name.log" 2>&1; then
        summary+=("PASS $name")
    else
        summary+=("FAIL($?) $name")
    fi
    tail -n 3 "$out/$name.log"
}
nvidia-smi -L
run build-cuda 600 make cuda JOBS=16
run build-serial 300 make serial JOBS=16
run ctest-cuda 600 bash -c "cd build/cuda && ctest -j4 --timeout 300 --output-on-failure"
san="compute-sanitizer --error-exitcode 9"
run memcheck-graph 300 $san --tool memcheck build/cuda/bin/test_graph
run racecheck-graph 300 $san --tool racecheck build/cuda/bin/test_graph
run initcheck-graph 300 $san --tool initcheck build/cuda/bin/test_graph
run synccheck-async 300 $san --tool synccheck build/cuda/bin/test_async
run memcheck-async 400 $san --tool memcheck build/cuda/bin/test_async
run initcheck-reduce 400 $san --tool initcheck build/cuda/bin/test_reduce
run memcheck-cg 200 $san --tool memcheck build/cuda/bin/duo-cg 40 --check --reps 1
run compare 600 ./src/apps/compare_apps.sh cuda
run bench 600 build/cuda/bin/duo-bench --only reduce,solver --out "$out"
for b in serial cuda; do
    run "cg512-$b" 300 "build/$b/bin/duo-cg" 512 512 --reps 3
done
echo
printf '%s\n' "${summary[@]}"
grep -h "median_ms" "$out"/cg512-*.log
sed -n '/compare_apps: serial vs/,$p' "$out/compare.log" | tail -n 22
