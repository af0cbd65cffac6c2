#!/usr/bin/env bash
# run_bench.sh BACKEND [duo-bench options...] - what `make bench*` runs:
# install the yardsticks' dependencies, configure and build duo-bench for
# BACKEND into build/<backend>, and run it (reports in profiles/ unless
# the options say --out DIR).
#
#   BACKEND  serial, openmp, cuda, or auto: cuda when nvcc is on PATH and
#            `nvidia-smi -L` lists a GPU, else openmp.
#   CPU backends run with OMP_NUM_THREADS=2 unless it is set (the CPU
#   targets are stated for 2 threads).  Threads are not pinned: with
#   OMP_PROC_BIND set, libgomp pins the main thread to one core and
#   OpenBLAS's threads inherit that, halving the gemm yardstick.  Run it
#   on an otherwise idle machine: the streaming ratios swing by 20% when
#   another job shares the cores.
#   Environment: CMAKE, CMAKE_FLAGS, JOBS as in the Makefile.
set -euo pipefail
cd "$(dirname "$0")/../.."

backend="${1:-auto}"
if [ $# -gt 0 ]; then shift; fi
CMAKE="${CMAKE:-cmake}"
JOBS="${JOBS:-$(nproc 2>/dev/null || echo 2)}"
start=$(date +%s)

if [ "$backend" = auto ]; then
  if ! command -v nvcc >/dev/null 2>&1; then
    backend=openmp why="nvcc is not on PATH"
  elif ! nvidia-smi -L 2>/dev/null | grep -q '^GPU'; then
    backend=openmp why="nvidia-smi -L lists no GPU"
  else
    backend=cuda why="nvcc and a GPU found"
  fi
  echo "make bench: backend $backend ($why)"
fi
case "$backend" in
  serial|openmp|cuda) ;;
  *) echo "usage: $0 auto|serial|openmp|cuda [duo-bench options]" >&2; exit 2 ;;
esac
if [ "$backend" = cuda ] && ! command -v nvcc >/dev/null 2>&1; then
  echo "make bench-cuda: nvcc (the CUDA toolkit) was not found on PATH." >&2
  echo "  Install the CUDA toolkit, or run make bench-openmp / bench-serial." >&2
  exit 1
fi

bash ./src/bench/install_deps.sh "$backend"
# shellcheck disable=SC2086 # CMAKE_FLAGS is a list of flags
"$CMAKE" -S . -B "build/$backend" -DDUO_BACKEND="$backend" ${CMAKE_FLAGS:-}
"$CMAKE" --build "build/$backend" -j "$JOBS" --target duo-bench

if [ "$backend" != cuda ]; then
  export OMP_NUM_THREADS="${OMP_NUM_THREADS:-2}"
fi
status=0
"build/$backend/bin/duo-bench" "$@" || status=$?
echo "make bench: $backend finished in $(( $(date +%s) - start )) s (exit $status)"
exit "$status"
