#!/usr/bin/env bash
# overhead.sh - what the built-in profiler costs.  Runs each app at its
# default size, with --reps 21 so that short runs give a stable median, in
# three builds/modes, alternating them round by round:
#   compiled out   build/<backend>-noprof (-DDUO_PROFILER=OFF)
#   off            build/<backend>, DUO_PROFILE unset
#   on             build/<backend>, DUO_PROFILE=csv (report to /dev/null)
# and prints, per app, the median over rounds of the app's own median
# time (its first result line), with the ratios off/compiled-out and
# on/off.  Writes the table to profiles/overhead-<backend>.md.
#
#   ./profiles/overhead.sh <serial|openmp|cuda> [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
backend=${1:?usage: $0 serial|openmp|cuda [ROUNDS]}
rounds=${2:-5}
jobs=$(nproc 2>/dev/null || echo 2)

cmake -S . -B "build/$backend" -DDUO_BACKEND="$backend" >/dev/null
cmake --build "build/$backend" -j "$jobs" >/dev/null
cmake -S . -B "build/$backend-noprof" -DDUO_BACKEND="$backend" \
    -DDUO_PROFILER=OFF -DDUO_BUILD_TESTS=OFF -DDUO_BUILD_BENCH=OFF >/dev/null
cmake --build "build/$backend-noprof" -j "$jobs" >/dev/null

apps=(duo-saxpy duo-reduce duo-gemm duo-julia duo-primes duo-pi duo-heat
      duo-nearest duo-matmul duo-reduce-steps duo-cg duo-staged)
median_ms() { sed -n 's/.* median_ms=\([^ ]*\).*/\1/p' | head -n 1; }
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

declare -A t
for ((r = 1; r <= rounds; ++r)); do
    echo "overhead.sh: round $r of $rounds" >&2
    for app in "${apps[@]}"; do
        t[$app,out]+="$("build/$backend-noprof/bin/$app" --reps 21 2>/dev/null | median_ms) "
        t[$app,off]+="$(env -u DUO_PROFILE "build/$backend/bin/$app" --reps 21 2>/dev/null | median_ms) "
        t[$app,on]+="$(DUO_PROFILE=csv DUO_PROFILE_FILE=/dev/null "build/$backend/bin/$app" --reps 21 2>/dev/null | median_ms) "
    done
done

if [[ $backend == cuda ]]; then
    machine=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1)
else
    machine=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -n 1)
fi
md=profiles/overhead-$backend.md
{
    echo "# Profiler overhead: $backend"
    echo
    echo "\`./profiles/overhead.sh $backend $rounds\` on ${machine:-an unknown machine}, $(date -u '+%Y-%m-%d %H:%M UTC');"
    echo "each app at its default size with --reps 21; median over $rounds alternating"
    echo "rounds of the app's median time (first result line).  \"compiled out\": a build"
    echo "with -DDUO_PROFILER=OFF; \"off\": DUO_PROFILE unset; \"on\": DUO_PROFILE=csv."
    echo
    echo "| app | compiled out ms | off ms | on ms | off / compiled out | on / off |"
    echo "|---|---:|---:|---:|---:|---:|"
    for app in "${apps[@]}"; do
        out=$(tr ' ' '\n' <<<"${t[$app,out]}" | grep . | median)
        off=$(tr ' ' '\n' <<<"${t[$app,off]}" | grep . | median)
        on=$(tr ' ' '\n' <<<"${t[$app,on]}" | grep . | median)
        awk -v a="$app" -v x="$out" -v y="$off" -v z="$on" \
            'BEGIN { printf "| %s | %.4g | %.4g | %.4g | %.3f | %.3f |\n", a, x, y, z, y / x, z / y }'
    done
} >"$md"
cat "$md"
