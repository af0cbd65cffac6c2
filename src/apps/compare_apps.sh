#!/usr/bin/env bash
# compare_apps.sh - what `make compare` runs: build serial and the fastest
# other backend this machine has (cuda with a GPU, else openmp), run every
# app on both with the same arguments and seed, compare the --dump files
# with duo-compare, and print one table.  Each app runs once more on the
# other backend under DUO_VALIDATE=1 (docs/checking.md#validation-mode):
# every launch, reduction and gemm checked against its second run (the
# host path on a GPU, one thread on the host), none may differ, and the
# run must leave the dump of the plain run.  Exits non-zero if any
# verdict failed or any run did not finish.
#
#   ./src/apps/compare_apps.sh [OTHER_BACKEND]      (or: make compare)
#
# Dumps and logs go to build/compare/.  Integer results (primes, pi,
# nearest, julia, compact), sorts, duo-atomics' dump (integer atomics and
# duo_reduce), the solvers' (cg, bicgstab: fixed-order sums, fma
# kernels) and duo-lens's (float rays with fmaf and <duo/math.h>,
# fixed-order sums, so the same optimizer steps) must match exactly;
# duo_gemm sums in one order on every backend (src/gemm_order.h), so
# duo-gemm must match exactly too, f32 and f64 (one chain over K = 1000,
# across the CPU's cache blocks of k, with beta); other floats use
# duo-compare's defaults, except matmul, whose dump is checked against
# the absolute bound 2 (K+2) u K that two independently rounded dot
# products of K terms in (-1, 1) satisfy.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cd "$root"

other=${1:-}
if [[ -z "$other" ]]; then
    other=openmp
    if command -v nvcc >/dev/null 2>&1 && command -v nvidia-smi >/dev/null 2>&1 &&
        nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
        other=cuda
    fi
fi
# A CUDA build on its host path (DUO_DEVICE=cpu, as `make compare-host`
# runs it) is the openmp build's code: every result must then equal the
# serial build's bit for bit, gemm and matmul included.
exact_all=0
other_label=$other
if [[ "$other" == cuda && "${DUO_DEVICE:-}" == cpu ]]; then
    exact_all=1
    other_label=cuda-host
fi
echo "compare_apps: serial vs $other_label"
# shellcheck disable=SC2086
${MAKE:-make} --no-print-directory serial "$other"

out=build/compare
rm -rf "$out"
mkdir -p "$out/serial" "$out/$other_label"
compare=build/serial/bin/duo-compare

# app | arguments (identical on both backends) | extra duo-compare options
k=129
gemm_atol=$(awk -v k=$k 'BEGIN { printf "%.3g", 2 * (k + 2) * 2^-24 * k }')
runs=(
    "duo-saxpy|4000037 --seed 7|"
    "duo-reduce|4000037 --seed 7|"
    "duo-reduce|1000003 --type f64 --op argmin --seed 7|"
    "duo-gemm|513 257 $k --seed 7|--exact"
    "duo-gemm|300 200 1000 --type f64 --ta --tb --beta 0.5 --seed 7|--exact"
    "duo-julia|800 600|"
    "duo-primes|1000000|"
    "duo-pi|16777216 --seed 7|"
    "duo-heat|512 512 --steps 200|"
    "duo-nearest|4099 --algo tiled --seed 7|"
    "duo-matmul|257 255 $k --seed 7|--atol=$gemm_atol"
    "duo-reduce-steps|4194301 --seed 7|"
    "duo-cg|128 --seed 7|--exact"
    "duo-bicgstab|128 96 --seed 7|--exact"
    "duo-staged|4000037 --seed 7|"
    "duo-sort|1000003 --type f32 --pairs --seed 7|--exact"
    "duo-sort|1000003 --type i64 --order desc --seed 7|--exact"
    "duo-atomics|1000003 --seed 7|--exact"
    "duo-compact|4000037|--exact"
    "duo-lens|100003 --iters 5|--exact"
)

# median_ms of the first result line, and its size= field.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" | head -n 1; }

rows=()
failed=()
for entry in "${runs[@]}"; do
    IFS='|' read -r app args opts <<<"$entry"
    ((exact_all)) && opts=--exact
    tag=$(echo "$app $args" | tr -c 'A-Za-z0-9\n' '_' | tr -s '_')
    times=()
    for backend in serial "$other_label"; do
        log="$out/$backend/$tag.log"
        bin=build/${backend%-host}/bin/$app
        # Word splitting of $args is wanted.
        # shellcheck disable=SC2086
        if ! "$bin" $args --reps 3 \
            --dump "$out/$backend/$tag.dump" >"$log" 2>&1; then
            failed+=("$app $args on $backend (see $log)")
        fi
        times+=("$(field median_ms <"$log")")
    done
    # The validated run: its summary line, and the same dump.  duo-atomics
    # adds floats atomically on purpose, whose bits depend on timing
    # (docs/api.md): validation reports that wherever threads race, so
    # there the check is the run and its dump (integer results only).
    vlog="$out/$other_label/$tag.validate"
    want=' checked, 0 differ'
    [[ $app == duo-atomics ]] && want=' checked, [0-9]* differ'
    validated=FAIL
    # shellcheck disable=SC2086
    if DUO_VALIDATE=1 DUO_VALIDATE_REPORT="$vlog" \
        "build/${other_label%-host}/bin/$app" $args --reps 1 \
        --dump "$out/$other_label/$tag.validated.dump" \
        >"$vlog.log" 2>&1 &&
        grep -q "$want" "$vlog" &&
        cmp -s "$out/$other_label/$tag.dump" \
            "$out/$other_label/$tag.validated.dump"; then
        validated=$(sed -n 's/.*: \([0-9]*\) operation(s) checked, .*/\1/p' "$vlog")
        [[ $app == duo-atomics ]] && validated="$validated*"
    else
        failed+=("$app $args under DUO_VALIDATE=1 on $other_label (see $vlog)")
    fi
    size=$(field size <"$out/serial/$tag.log")
    verdict=FAIL
    max_abs=- max_ulp=-
    # shellcheck disable=SC2086
    if "$compare" "$out/$other_label/$tag.dump" "$out/serial/$tag.dump" $opts \
        >"$out/$tag.compare" 2>&1; then
        verdict=PASS
    else
        failed+=("$app $args: $(tail -n 1 "$out/$tag.compare")")
    fi
    max_abs=$(sed -n 's/.* max_abs=\([^ ]*\).*/\1/p' "$out/$tag.compare" |
        sort -g | tail -n 1)
    max_ulp=$(sed -n 's/.* max_ulp=\([^ ]*\).*/\1/p' "$out/$tag.compare" |
        sort -g | tail -n 1)
    speedup=$(awk -v a="${times[0]:-0}" -v b="${times[1]:-0}" \
        'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }')
    rows+=("$app|$size|${times[0]:--}|${times[1]:--}|$speedup|${max_abs:--}|${max_ulp:--}|$validated|$verdict")
done

echo
echo "compare_apps: serial vs $other_label (dumps and logs in $out/)"
fmt="%-18s %-16s %11s %11s %8s %10s %8s %9s  %s\n"
printf "$fmt" app size "serial ms" "$other_label ms" speedup max_error max_ulps validated verdict
printf "$fmt" ------------------ ---------------- ----------- ----------- \
    -------- ---------- -------- --------- -------
for row in "${rows[@]}"; do
    IFS='|' read -r app size ts to sp me mu va v <<<"$row"
    printf "$fmt" "$app" "$size" "$ts" "$to" "$sp" "$me" "$mu" "$va" "$v"
done
echo "(validated: operations checked under DUO_VALIDATE=1 on $other_label, none differing;"
echo " *: duo-atomics' float atomic adds may differ from run to run by design; validation reports them)"
if ((${#failed[@]} > 0)); then
    echo
    echo "compare_apps: ${#failed[@]} problem(s):" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
echo
echo "compare_apps: all ${#rows[@]} comparisons passed"
