#!/usr/bin/env bash
# compare_mpi.sh - what `make compare-mpi` runs: the distributed apps on
# 1..NP ranks of the MPI build against the plain serial build, dumps
# compared bit for bit (duo-compare --exact), one table.  Exits non-zero
# if any run fails or any dump differs.
#
#   ./src/distributed/compare_mpi.sh [BACKEND [NP]]   BACKEND: serial (default),
#                                              openmp or cuda; NP: 4
#
# Dumps and logs go to build/compare-mpi/.  On a GPU machine use cuda:
# ranks share the GPUs round robin by local rank.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"
backend=${1:-serial}
maxnp=${2:-4}
case "$backend" in serial|openmp|cuda) ;; *)
  echo "usage: $0 [serial|openmp|cuda [NP]]" >&2; exit 2 ;;
esac
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-1}
mpirun_flags=(--oversubscribe)
mpirun --version 2>/dev/null | grep -q "Open MPI" || mpirun_flags=()

${MAKE:-make} --no-print-directory serial "$backend-mpi"
out=build/compare-mpi
rm -rf "$out"
mkdir -p "$out"
compare=build/serial/bin/duo-compare

# app | arguments
runs=(
  "duo-heat|512 512 --steps 200"
  "duo-heat|301 97 --steps 50 --k 0.25 --seed 9"
  "duo-cg|512 512"
  "duo-cg|301 97 --seed 9"
  "duo-bicgstab|128 96"
  "duo-bicgstab|301 97 --cx 2 --cy 1 --seed 9"
)
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n 1; }

printf '%-12s %-36s %-14s %5s %11s %8s\n' app arguments build ranks \
  "median ms" verdict
printf '%-12s %-36s %-14s %5s %11s %8s\n' ------------ \
  ------------------------------------ -------------- ----- ----------- --------
failed=0
i=0
for entry in "${runs[@]}"; do
  IFS='|' read -r app args <<<"$entry"
  i=$((i + 1))
  ref="$out/$i-serial.dump"
  # Word splitting of $args is wanted.
  # shellcheck disable=SC2086
  if build/serial/bin/$app $args --reps 3 --dump "$ref" >"$out/$i-serial.log" 2>&1; then
    v=reference
  else
    v=FAIL
    failed=1
  fi
  printf '%-12s %-36s %-14s %5s %11s %8s\n' "$app" "$args" serial 1 \
    "$(field median_ms <"$out/$i-serial.log")" "$v"
  for np in $(seq 1 "$maxnp"); do
    dump="$out/$i-np$np.dump"
    log="$out/$i-np$np.log"
    v=FAIL
    # shellcheck disable=SC2086
    if timeout 300 mpirun "${mpirun_flags[@]}" -np "$np" \
         "build/$backend-mpi/bin/$app" $args --reps 3 --dump "$dump" \
         >"$log" 2>&1 &&
       "$compare" --exact "$dump" "$ref" >"$out/$i-np$np.compare" 2>&1; then
      v=PASS
    fi
    [ "$v" = PASS ] || failed=1
    printf '%-12s %-36s %-14s %5s %11s %8s\n' "$app" "$args" "$backend-mpi" \
      "$np" "$(field median_ms <"$log")" "$v"
  done
done
echo
if [ "$failed" = 0 ]; then
  echo "compare_mpi: every dump equals the serial build's, bit for bit"
else
  echo "compare_mpi: FAILED (logs in $out/)"
  exit 1
fi
