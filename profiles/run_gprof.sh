#!/usr/bin/env bash
# run_gprof.sh - profile every duo app of a CPU backend with gprof and with
# duo's built-in profiler, in the same run.
#
#   ./profiles/run_gprof.sh serial|openmp      (make profile-serial / -openmp)
#
# Builds build/profile-<backend> with -pg (its own folder: the normal
# build/<backend> is left alone), runs each app of its bin/ (every duo-*
# program but duo-compare, duo-profile-diff and duo-bench) in its own
# working directory, build/profile-<backend>/run/<app>/, so that the
# gmon.out files do not overwrite each other, and writes to
# profiles/<backend>/:
#
#   <app>.gprof-flat.txt       gprof -b -p  (flat profile: time per function)
#   <app>.gprof-callgraph.txt  gprof -b -q  (call graph: who calls whom)
#   <app>.callgraph.png        the call graph drawn by gprof2dot + dot
#   <app>.csv                  duo's own profile of the same run
#                              (DUO_PROFILE=csv), for duo-profile-diff
#   <app>.log                  the app's output and the gprof notes
#
# Flags: CMAKE_C_FLAGS="-pg -fno-omit-frame-pointer
# -fno-inline-functions-called-once" on top of the Release flags (-O3
# -march=x86-64-v3): -pg adds the mcount calls that give gprof its call
# counts; the other two keep the frame chain and keep functions called
# from one place (most of duo's kernels and helpers) out of their caller,
# so they show up by name.  Small kernels may still be inlined into their
# caller (saxpy_kernel into run_saxpy); turning that off too
# (-fno-inline-small-functions) made duo-gemm about 3x slower (its load
# helpers were no longer inlined), so it is not used.  PROFILE_CFLAGS
# replaces the two flags after -pg.
#
# OpenMP: gprof samples worker threads too (not only the main thread), but
# only in the program's own code: time inside libgomp (threads spinning at
# a barrier) and libc is missing, and on a machine busy with other work
# many samples of the loops themselves were lost too (profiles/README.md).
# Each app's line prints the seconds gprof sampled beside the CPU seconds
# of the run, so a gap shows; OMP_WAIT_POLICY=passive (passed through)
# narrows it.
#
# Symbols with a dot in their name (OpenMP's outlined loop bodies,
# "saxpy_kernel._omp_fn.0", and GCC's "foo.part.0" / "foo.cold" clones) are
# dropped by gprof, which then charges their samples to the function before
# them in memory.  gprof is therefore run on a copy of the binary whose
# symbols have the dots replaced by "_" (objcopy --redefine-syms): the
# code and addresses are the same, so gmon.out still matches.
#
# Apps and sizes: profiles/apps.sh (the same for every backend); each
# runs about a second here.  PROFILE_ARGS_<app with - as _>="..."
# overrides, e.g. PROFILE_ARGS_duo_gemm="256 --reps 3".
#
# Fails (exit 1) if the build or an app fails.  gprof2dot / dot are
# installed by profiles/install_tools.sh where missing; if that is not
# possible the PNGs are skipped with one line saying so.
set -euo pipefail

usage() { echo "usage: $0 serial|openmp" >&2; exit 2; }
[[ $# -eq 1 ]] || usage
backend=$1
case "$backend" in
    serial|openmp) ;;
    cuda) echo "run_gprof.sh: gprof does not see GPU kernels; use" \
               "profiles/run_cuda_profile.sh (make profile-cuda)" >&2; exit 2 ;;
    *) usage ;;
esac

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
build="build/profile-$backend"
out="profiles/$backend"
pg_flags=${PROFILE_CFLAGS:-"-fno-omit-frame-pointer -fno-inline-functions-called-once"}

# shellcheck source=profiles/apps.sh
. profiles/apps.sh

command -v gprof >/dev/null 2>&1 || {
    echo "run_gprof.sh: gprof (binutils) not found; trying profiles/install_tools.sh"
    ./profiles/install_tools.sh
    command -v gprof >/dev/null 2>&1 || {
        echo "run_gprof.sh: gprof is needed: install binutils" >&2; exit 1; }
}
# gprof2dot and dot for the PNGs; matplotlib for the diff charts.
if ! "$python" -c "import gprof2dot, matplotlib" >/dev/null 2>&1 ||
    ! command -v dot >/dev/null 2>&1; then
    ./profiles/install_tools.sh
fi
png=1
png_why=""
if ! "$python" -c "import gprof2dot" >/dev/null 2>&1; then
    png=0; png_why="gprof2dot"
fi
if ! command -v dot >/dev/null 2>&1; then
    png=0; png_why="${png_why:+$png_why and }Graphviz dot"
fi

# --- build ------------------------------------------------------------------
echo "run_gprof.sh: building $backend with -pg into $build"
cmake -S . -B "$build" -DDUO_BACKEND="$backend" -DDUO_BUILD_TESTS=OFF \
    -DCMAKE_BUILD_TYPE=Release \
    "-DCMAKE_C_FLAGS=-pg $pg_flags" \
    -DCMAKE_EXE_LINKER_FLAGS=-pg >/dev/null
cmake --build "$build" -j "$jobs"

mapfile -t apps < <(duo_profile_apps "$build/bin")
if [[ ${#apps[@]} -eq 0 ]]; then
    echo "run_gprof.sh: no duo-* apps in $build/bin (DUO_BUILD_APPS=OFF?)" >&2
    exit 1
fi

# The folder holds this run's files only (no stale apps for the diff).
rm -rf "$out"
mkdir -p "$out"
threads=""
if [[ "$backend" == openmp ]]; then
    threads=${OMP_NUM_THREADS:-$(nproc 2>/dev/null || echo "?")}
    echo "run_gprof.sh: note: OpenMP build, $threads threads" \
         "(OMP_NUM_THREADS=${OMP_NUM_THREADS:-unset}).  gprof is often said to" \
         "sample the main thread only; here worker threads are sampled too" \
         "(profiles/README.md shows the check).  But time inside libgomp" \
         "(threads spinning at a barrier) is never counted, and when other" \
         "work keeps the cores busy many samples of the loops themselves go" \
         "missing as well: compare 'gprof sampled' with 'CPU' below, and read" \
         "gprof's seconds as a lower bound when they differ" \
         "(OMP_WAIT_POLICY=passive narrows the gap).  Call counts cover every" \
         "thread (a few are lost when threads enter mcount together).  The" \
         "built-in profile (<app>.csv) times each region as a whole."
fi
[[ $png -eq 1 ]] || echo "run_gprof.sh: callgraph PNG skipped: $png_why not" \
    "available (profiles/install_tools.sh could not install it)"

# --- run ---------------------------------------------------------------------
failed=()
for app in "${apps[@]}"; do
    args=$(duo_profile_args "$app")
    rundir="$build/run/$app"
    rm -rf "$rundir"
    mkdir -p "$rundir"
    log="$out/$app.log"
    csv="$root/$out/$app.csv"
    echo
    echo "run_gprof.sh: [$backend] $app${args:+ $args}"
    # CPU seconds of the run (user + sys, every thread), to set beside
    # what gprof sampled.
    rc=0
    TIMEFORMAT='%3U %3S %3R'
    # shellcheck disable=SC2086  # args is a word list
    times=$( { time (cd "$rundir" &&
                     DUO_PROFILE=csv DUO_PROFILE_FILE="$csv" \
                     "$root/$build/bin/$app" $args >"$root/$log" 2>&1); } 2>&1 ) || rc=$?
    cat "$log"
    if [[ $rc -ne 0 ]]; then
        echo "run_gprof.sh: $app FAILED (exit $rc); its output is in $log" >&2
        failed+=("$app (exit $rc)")
        continue
    fi
    if [[ ! -s "$rundir/gmon.out" ]]; then
        echo "run_gprof.sh: $app wrote no gmon.out (not built with -pg?)" >&2
        failed+=("$app (no gmon.out)")
        continue
    fi
    if [[ ! -s "$csv" ]]; then
        echo "run_gprof.sh: $app wrote no built-in profile $csv" >&2
        failed+=("$app (no CSV)")
        continue
    fi

    # A copy of the binary with gprof-safe symbol names (see the top).
    sym="$rundir/$app.gprof-syms"
    nm --defined-only "$build/bin/$app" |
        awk '$2 ~ /^[tTwW]$/ && $3 ~ /\./ { n = $3; gsub(/\./, "_", n); print $3, n }' \
        >"$rundir/symbols.map"
    if [[ -s "$rundir/symbols.map" ]]; then
        objcopy --redefine-syms="$rundir/symbols.map" "$build/bin/$app" "$sym"
    else
        cp "$build/bin/$app" "$sym"
    fi

    gprof -b -p "$sym" "$rundir/gmon.out" >"$out/$app.gprof-flat.txt"
    gprof -b -q "$sym" "$rundir/gmon.out" >"$out/$app.gprof-callgraph.txt"
    sampled=$(awk '/^ *[0-9.]+ +[0-9.]+ +[0-9.]+/ { s = $2 } END { printf "%.2f", s + 0 }' \
        "$out/$app.gprof-flat.txt")
    read -r user sys wall <<<"$times"
    note="gprof sampled ${sampled} s; CPU ${user} s user + ${sys} s sys; wall ${wall} s"
    [[ -n "$threads" ]] && note="$note; $threads OpenMP threads (gprof can undercount OpenMP: profiles/README.md)"
    echo "run_gprof.sh: $app: $note"
    echo "# run_gprof.sh: $app${args:+ $args}: $note" >>"$log"
    if [[ $png -eq 1 ]]; then
        if gprof "$sym" "$rundir/gmon.out" 2>/dev/null |
            "$python" -m gprof2dot -f prof -n 0 -e 0 -w |
            dot -Tpng -o "$out/$app.callgraph.png"; then
            :
        else
            echo "run_gprof.sh: callgraph PNG skipped for $app: gprof2dot or dot failed"
            rm -f "$out/$app.callgraph.png"
        fi
    fi
    echo "run_gprof.sh: wrote $out/$app.{gprof-flat.txt,gprof-callgraph.txt,csv,log}$(
        [[ -f "$out/$app.callgraph.png" ]] && echo ",callgraph.png")"
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo
    echo "run_gprof.sh: ${#failed[@]} of ${#apps[@]} apps FAILED on $backend:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
echo
echo "run_gprof.sh: $backend: ${#apps[@]} apps profiled into $out/"
