#!/usr/bin/env bash
# gemm_tune.sh - everything the CUDA gemm needs checked and timed on a GPU
# machine, in one run (about 3 minutes on an H100, builds included):
#
#   bash profiles/gemm_tune.sh OUTDIR
#
#  1. builds build/cuda (make cuda: sm_90 code) and build/serial;
#  2. test_gemm and the gemm ctest suites of the cuda build;
#  3. duo-gemm dumps on serial and cuda compared by duo-compare, f32 and
#     f64, K below and above the CPU's k block, beta 0 and not, products
#     that CUDA splits over k (small C, long k), f32 products with B
#     packed (DUO_GEMM_PACK=1) and f64 on the tensor cores
#     (DUO_GEMM_F64=tensor): which results are bit-identical (max_ulp 0)
#     and which are not;
#  4. compute-sanitizer memcheck on test_gemm (every tile shape, all
#     transposes, edges);
#  5. duo-bench --only gemm (every row, the automatic tile choice);
#  6. racecheck on a small duo-gemm run per tile shape, on split products
#     (f32 and f64) and with B packed;
#  7. the bench rows up to 4096^3 once per forced tile shape
#     (DUO_GEMM_TILE; f64 per kernel, DUO_GEMM_F64=fma and tensor), to
#     see whether the automatic choice picks the fastest (the data
#     pick_shape's constants are fitted to).
# Logs and reports go to OUTDIR; a short table is printed at the end.
# Exit status: 1 if a test, check or sanitizer run failed.
set -uo pipefail

out=${1:?usage: gemm_tune.sh OUTDIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root" || exit 1
mkdir -p "$out"
out=$(cd "$out" && pwd)
jobs=$(nproc 2>/dev/null || echo 8)
export PATH="$PATH:/usr/local/cuda/bin"
failed=()
log() { echo "gemm_tune: $*" | tee -a "$out/summary.txt"; }
step() { # step NAME SECONDS command...: run with a time limit, log it
    local name=$1 limit=$2
    shift 2
    local t0=$SECONDS
    timeout "$limit" "$@" >"$out/$name.log" 2>&1
    local rc=$?
    log "$name: exit $rc in $((SECONDS - t0)) s (log: $name.log)"
    ((rc == 0)) || failed+=("$name (exit $rc)")
    return $rc
}

log "$(date -u '+%F %T UTC'); $(nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader 2>/dev/null | head -1)"
git log --oneline -1 >>"$out/summary.txt" 2>/dev/null

# 1. Builds.
step build_cuda 300 make cuda JOBS="$jobs" || { tail -n 30 "$out/build_cuda.log"; exit 1; }
step build_serial 200 make serial JOBS="$jobs"

# 2. Tests.
step test_gemm 300 build/cuda/bin/test_gemm
tail -n 12 "$out/test_gemm.log" | sed 's/^/  /'
step ctest_gemm 200 bash -c "cd build/cuda && ctest --output-on-failure -R 'gemm|matmul' -E '^gemm$'"

# 3. CPU vs GPU bits.
echo "app_args|note|max_ulp|verdict" >"$out/bits.txt"
bits() { # bits "duo-gemm args" note
    local args=$1 note=$2 tag
    tag=$(echo "$args" | tr -c 'A-Za-z0-9\n' '_')
    for b in serial cuda; do
        # shellcheck disable=SC2086
        timeout 120 "build/$b/bin/duo-gemm" $args --reps 1 \
            --dump "$out/bits_${tag}_$b.dump" >"$out/bits_${tag}_$b.log" 2>&1 ||
            failed+=("duo-gemm $args on $b")
    done
    timeout 60 build/serial/bin/duo-compare "$out/bits_${tag}_cuda.dump" \
        "$out/bits_${tag}_serial.dump" --ulps 0 >"$out/bits_${tag}.compare" 2>&1
    local rc=$? ulp
    ulp=$(sed -n 's/.* max_ulp=\([^ ]*\).*/\1/p' "$out/bits_${tag}.compare" | head -1)
    echo "$args|$note|${ulp:--}|$([ $rc = 0 ] && echo identical || echo differ)" >>"$out/bits.txt"
}
bits "513 257 129 --seed 7" "make compare's row, beta 0"
bits "513 257 129 --seed 7 --beta 0.75 --alpha 1.5" "f32 K <= 384, beta != 0"
bits "300 200 384 --seed 3 --ta" "f32 K = one CPU k block"
bits "300 200 1000 --seed 3" "f32 K = 1000: one chain across the CPU's cache blocks"
bits "513 257 129 --seed 7 --type f64" "f64, beta 0"
bits "300 200 256 --seed 3 --type f64 --tb --beta -0.5" "f64 beta != 0"
bits "300 200 1000 --seed 3 --type f64 --ta --tb" "f64 TT, K not a multiple of 16"
bits "67 45 2100 --seed 3 --type f64 --beta 0.5" "f64 split over k: 2048 + 52, beta"
DUO_GEMM_F64=fma bits "300 200 1000 --seed 3 --type f64" "f64 on the FP64 units"
DUO_GEMM_F64=tensor bits "300 200 1000 --seed 3 --type f64" "f64 on the tensor cores (the same bits on compute capability 9.x)"
bits "2048 64 4096 --seed 5" "f32 split over k on CUDA: CPU's k blocks"
bits "64 2048 3000 --seed 5 --ta --beta 0.5" "f32 split, last k block partial, beta"
bits "8192 64 8192 --seed 5 --tb" "f32 split, the bench's tall-skinny row"
DUO_GEMM_PACK=1 bits "2048 300 384 --seed 9 --tb --beta 0.5" "f32 B packed (forced), K = one CPU k block"
DUO_GEMM_PACK=1 bits "257 131 384 --seed 9 --ta --tb" "f32 TT, B packed (forced)"

# 4. memcheck: every tile shape, transposes, edges, error paths.
step memcheck_test_gemm 400 compute-sanitizer --tool memcheck --error-exitcode 9 \
    build/cuda/bin/test_gemm
# 5. The whole gemm group, automatic tile choice.
step bench_auto 420 build/cuda/bin/duo-bench --only gemm --out "$out/auto"

# 6. racecheck, a small run per tile shape.
for t in 128x256 128x128 128x64 64x128 64x64 32x64 32x32; do
    DUO_GEMM_TILE=$t step "racecheck_f32_$t" 120 compute-sanitizer --tool racecheck \
        --error-exitcode 9 build/cuda/bin/duo-gemm 131 70 45 --ta --reps 1 --check
done
DUO_GEMM_TILE=auto step racecheck_f32_split 120 compute-sanitizer --tool racecheck \
    --error-exitcode 9 build/cuda/bin/duo-gemm 67 45 1700 --tb --reps 1 --check
DUO_GEMM_PACK=1 step racecheck_f32_packed 120 compute-sanitizer --tool racecheck \
    --error-exitcode 9 build/cuda/bin/duo-gemm 131 70 45 --tb --reps 1 --check
for t in 128x128 128x64 64x64 64x32 32x32; do
    DUO_GEMM_TILE=$t step "racecheck_f64_$t" 120 compute-sanitizer --tool racecheck \
        --error-exitcode 9 build/cuda/bin/duo-gemm 131 70 45 --tb --type f64 --reps 1 --check
done
DUO_GEMM_TILE=auto step racecheck_f64_split 120 compute-sanitizer --tool racecheck \
    --error-exitcode 9 build/cuda/bin/duo-gemm 67 45 2100 --tb --type f64 --reps 1 --check
for t in 128x128 64x64 64x32 32x32; do
    DUO_GEMM_F64=tensor DUO_GEMM_TILE=$t step "racecheck_f64t_$t" 120 compute-sanitizer \
        --tool racecheck --error-exitcode 9 build/cuda/bin/duo-gemm 131 70 45 --tb --type f64 \
        --reps 1 --check
done

# 7. Sizes up to 4096^3 per forced tile shape.
mid="256x256x256,512x512x512,1000x1000x1000,1023x1023x1023,1024x1024x1024"
mid="$mid,2048x2048x2048,4096x4096x4096,513x257x129,4096x4096x64"
mid="$mid,8192x64x8192,64x8192x8192,1023x1023x1023NT,1023x1023x1023TN"
mid="$mid,4096x4096x4096NT,4096x4096x4096TN"
for t in 128x256 128x128 128x64 64x128 64x64 32x64 32x32; do
    DUO_GEMM_TILE=$t DUO_BENCH_GEMM_SHAPES="f32:$mid" \
        step "tile_f32_$t" 240 build/cuda/bin/duo-bench --only gemm --out "$out/f32_$t"
done
for t in 128x128 128x64 64x64 64x32 32x32; do
    DUO_GEMM_F64=fma DUO_GEMM_TILE=$t DUO_BENCH_GEMM_SHAPES="f64:$mid" \
        step "tile_f64_$t" 240 build/cuda/bin/duo-bench --only gemm --out "$out/f64_$t"
done
for t in 128x128 64x64 64x32 32x32; do
    DUO_GEMM_F64=tensor DUO_GEMM_TILE=$t DUO_BENCH_GEMM_SHAPES="f64:$mid" \
        step "tile_f64t_$t" 240 build/cuda/bin/duo-bench --only gemm --out "$out/f64t_$t"
done

# Final tables.
{
    echo
    echo "== targets (automatic tile choice, $out/auto/bench-cuda.md) =="
    sed -n '/^## Targets/,/^## Results/p' "$out/auto/bench-cuda.md" 2>/dev/null |
        grep '^| GPU gemm' | sed 's/^| GPU gemm //; s/ |/|/g'
    echo
    echo "== ratio to cuBLAS per forced tile shape (columns), per shape (rows) =="
    python3 - "$out" <<'EOF'
import csv, os, sys
out = sys.argv[1]
# (label, directory prefix, shapes, tensor-core rows or not)
for prec, pre, tiles, tensor in (
        ("f32", "f32", ["auto", "128x256", "128x128", "128x64", "64x128", "64x64", "32x64", "32x32"], False),
        ("f64", "f64", ["auto", "128x128", "128x64", "64x64", "64x32", "32x32"], False),
        ("f64 tensor", "f64t", ["auto", "128x128", "64x64", "64x32", "32x32"], True)):
    table, order = {}, []
    for t in tiles:
        path = os.path.join(out, "auto" if t == "auto" else f"{pre}_{t}",
                            "bench-cuda.csv")
        if not os.path.exists(path):
            continue
        for r in csv.DictReader(open(path)):
            if (r["group"] != "gemm" or not r["what"].startswith(prec[:3])
                    or r["what"].endswith(" tensor") != tensor):
                continue
            key = f"{r['what']} {r['size']}"
            if key not in order:
                order.append(key)
            table.setdefault(key, {})[t] = float(r["ratio"])
    print(f"{prec:28s}" + "".join(f"{t:>9s}" for t in tiles) + "   best")
    for key in order:
        row = table[key]
        if len(row) < 2:
            continue
        best = max((v, t) for t, v in row.items() if t != "auto")[1] if row else "-"
        print(f"{key:28s}" + "".join(f"{row[t]:9.3f}" if t in row else f"{'-':>9s}"
                                     for t in tiles) + f"   {best}")
    print()
EOF
    echo "== CPU (serial) vs CUDA bits (duo-gemm dumps) =="
    # (no `column` on every machine)
    awk -F'|' '{ printf "%-44s %-44s %8s  %s\n", $1, $2, $3, $4 }' "$out/bits.txt"
    echo
    if ((${#failed[@]})); then
        echo "FAILED: ${failed[*]}"
    else
        echo "all builds, tests, checks and sanitizer runs passed"
    fi
} | tee -a "$out/summary.txt"
((${#failed[@]} == 0))
