#!/usr/bin/env bash
# compare_ranks.sh MPIEXEC "FLAGS" NP APP DUO_COMPARE DIR
# The mpi_cg_np<N> and mpi_bicgstab_np<N> tests: the solver APP (duo-cg
# or duo-bicgstab) on NP ranks gives the dump of one rank, bit for bit
# (duo-compare --exact), for each grid below.  One rank runs the
# single-process solver (graph, duo_dot_async), the code of the build
# without MPI; NP ranks split the rows and use duo_dist_dot(s)_async.
#   67 x 29: rows that do not divide among the ranks, dot chunks of 512
#            elements split between ranks;
#   40 x 4:  (4 ranks) 1-row subdomains, one chunk spread over all ranks;
#   700 x 9: rows longer than a chunk;
#   211 x 199: 83 chunks, spread over 3 warps of the final pass;
#   64 x 64: (2 and 4 ranks) pieces that begin on chunk boundaries, so
#            the dots take their stream-ordered form.
set -uo pipefail
mpiexec=$1 flags=$2 np=$3 app=$4 compare=$5 dir=$6
mkdir -p "$dir"
failed=0
for grid in "67 29" "40 4" "700 9" "211 199" "64 64"; do
  name=${grid/ /x}
  # Word splitting of $flags and $grid is wanted.
  # shellcheck disable=SC2086
  if ! timeout -k 5 120 "$mpiexec" -n 1 $flags "$app" $grid --reps 1 \
       --dump "$dir/$name-np1.dump" >"$dir/$name-np1.log" 2>&1; then
    echo "FAIL: $grid on 1 rank"; cat "$dir/$name-np1.log"; failed=1
    continue
  fi
  # shellcheck disable=SC2086
  if ! timeout -k 5 120 "$mpiexec" -n "$np" $flags "$app" $grid --reps 1 \
       --dump "$dir/$name-np$np.dump" >"$dir/$name-np$np.log" 2>&1; then
    echo "FAIL: $grid on $np ranks"; cat "$dir/$name-np$np.log"; failed=1
    continue
  fi
  cat "$dir/$name-np$np.log"
  if "$compare" --exact "$dir/$name-np$np.dump" "$dir/$name-np1.dump"; then
    echo "PASS: $grid: $np ranks = 1 rank, bit for bit"
  else
    echo "FAIL: $grid: $np ranks differ from 1 rank"; failed=1
  fi
done
exit $failed
