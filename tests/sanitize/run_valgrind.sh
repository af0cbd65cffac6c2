#!/usr/bin/env bash
# run_valgrind.sh [BACKEND...]   (make valgrind; default: serial openmp)
#
# Builds each CPU backend without -march=native (valgrind does not know
# every instruction a new CPU has) into build/valgrind-<backend> and runs
# every app at a small size under valgrind memcheck, with --check, then
# duo-compare on two of their dumps.  A run passes only with no memcheck
# error and no definitely, indirectly or possibly lost block; memory
# still reachable at exit (libgomp's thread pool) is not a leak.
#
# Suppressions: only tests/sanitize/valgrind-libgomp.supp, for the openmp
# build, each entry with the reason it is not a duo error.
#
# Prints one line per run and a summary; logs in build/valgrind-<backend>/
# logs/.  Environment: JOBS, CMAKE.
set -uo pipefail
cd "$(dirname "$0")/../.."
cmake=${CMAKE:-cmake}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
backends=("$@")
[ ${#backends[@]} -gt 0 ] || backends=(serial openmp)
command -v valgrind >/dev/null 2>&1 || {
    echo "run_valgrind.sh: valgrind not found (Debian: apt-get install valgrind)" >&2
    exit 1
}

# app and arguments, small sizes that still take every code path
runs=(
  "duo-saxpy 1009"
  "duo-reduce 1003 --type f64 --op argmax"
  "duo-reduce 257 --type i32 --op sum"
  "duo-gemm 17 13 9"
  "duo-julia 37 23"
  "duo-primes 1000"
  "duo-pi 10001"
  "duo-heat 33 17 --steps 5"
  "duo-nearest 100 --algo both"
  "duo-matmul 17 33 9"
  "duo-reduce-steps 1001"
  "duo-cg 8"
  "duo-staged 1000 --chunk 300 --streams 2"
  "duo-sort 1009 --type f64 --order desc --pairs"
  "duo-atomics 1003"
  "duo-compact 1009 --number 720720"
  "duo-lens 1009 --iters 1"
)
vg=(valgrind --tool=memcheck --error-exitcode=99 --leak-check=full
    --show-leak-kinds=definite,indirect,possible
    --errors-for-leak-kinds=definite,indirect,possible --track-origins=yes)
failed=0
table=()
for b in "${backends[@]}"; do
    dir=build/valgrind-$b
    "$cmake" -S . -B "$dir" -DDUO_BACKEND="$b" -DDUO_NATIVE=OFF \
        -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUO_BUILD_BENCH=OFF \
        -DDUO_BUILD_TESTS=OFF >/dev/null || exit 1
    "$cmake" --build "$dir" -j "$jobs" >/dev/null || exit 1
    mkdir -p "$dir/logs"
    supp=()
    [ "$b" = openmp ] && supp=(--suppressions=tests/sanitize/valgrind-libgomp.supp)
    export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
    i=0
    for r in "${runs[@]}" "duo-compare"; do
        read -r -a cmd <<< "$r"
        i=$((i + 1))
        log=$dir/logs/$i-${cmd[0]}.log
        if [ "${cmd[0]}" = duo-compare ]; then
            "$dir/bin/duo-saxpy" 101 --reps 1 --dump "$dir/logs/a.dump" >/dev/null &&
            "$dir/bin/duo-saxpy" 101 --reps 1 --dump "$dir/logs/b.dump" >/dev/null
            cmd=(duo-compare "$dir/logs/a.dump" "$dir/logs/b.dump")
        else
            cmd+=(--check --reps 1)
        fi
        rc=0
        "${vg[@]}" "${supp[@]}" --log-file="$log" "$dir/bin/${cmd[0]}" \
            "${cmd[@]:1}" > "$log.out" 2>&1 || rc=$?
        errors=$(sed -n 's/.*ERROR SUMMARY: \([0-9]*\) errors.*/\1/p' "$log" | tail -1)
        verdict=PASS
        if [ "$rc" -ne 0 ] || [ "${errors:-x}" != 0 ]; then
            verdict="FAIL (exit $rc, $errors errors; $log)"
            failed=1
        fi
        table+=("$(printf '%-7s %-55s %s' "$b" "${cmd[*]}" "$verdict")")
        printf '%s\n' "${table[-1]}"
    done
done
echo
echo "run_valgrind summary"
printf '%s\n' "${table[@]}"
exit $failed
