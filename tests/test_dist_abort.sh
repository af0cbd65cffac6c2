#!/usr/bin/env bash
# test_dist_abort.sh MPIEXEC "FLAGS" NP PATTERN PROGRAM [ARGS...]
# Runs PROGRAM on NP ranks under a time limit and passes when every rank
# ended (no hang: not killed by the limit) with a non-zero status and the
# output contains PATTERN (an extended regular expression).
set -uo pipefail
mpiexec=$1 flags=$2 np=$3 pattern=$4
shift 4
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# Word splitting of $flags is wanted.
# shellcheck disable=SC2086
timeout -k 5 60 "$mpiexec" -n "$np" $flags "$@" >"$out" 2>&1
rc=$?
cat "$out"
if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
  echo "FAIL: the ranks did not all end within 60 s (a hang)"
  exit 1
fi
if [ "$rc" -eq 0 ]; then
  echo "FAIL: exit status 0; expected the failing rank to end every rank"
  exit 1
fi
if ! grep -Eq -- "$pattern" "$out"; then
  echo "FAIL: exit status $rc, but no message matching: $pattern"
  exit 1
fi
if grep -q '^FAIL' "$out"; then
  echo "FAIL: a rank went on after the failure"
  exit 1
fi
echo "PASS: exit status $rc with the expected message"
