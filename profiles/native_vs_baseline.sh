#!/usr/bin/env bash
# native_vs_baseline.sh [OUTDIR] [duo-bench options]
#
# What tuning for this machine's CPU (-DDUO_NATIVE=ON: -march=native) buys
# over duo's portable baseline (DUO_NATIVE=OFF: x86-64-v3 on x86-64, the
# default of installed packages and consumers) on duo-bench's CPU groups.
# Builds the openmp backend both ways (build/bench-baseline and
# build/bench-native), runs duo-bench in each (default options: --quick
# --only reduce,segmented,gemm,stream,fma,prims), and writes
# OUTDIR/native-vs-baseline.md: each row's duo time in both builds and
# baseline / native (above 1: native is faster), beside both benches'
# own reports.  The two runs follow one another, so on a shared machine
# read the ratios with the load averages both reports print.
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-profiles/native}
shift || true
opts=("$@")
if [ ${#opts[@]} -eq 0 ]; then
    opts=(--quick --only reduce,segmented,gemm,stream,fma,prims)
fi
cmake=${CMAKE:-cmake}
jobs=${JOBS:-$(nproc)}
mkdir -p "$out"

for kind in baseline native; do
    native=OFF
    [ "$kind" = native ] && native=ON
    "$cmake" -S . -B "build/bench-$kind" -DDUO_BACKEND=openmp \
        -DCMAKE_BUILD_TYPE=Release -DDUO_NATIVE=$native >/dev/null
    "$cmake" --build "build/bench-$kind" -j "$jobs" --target duo-bench \
        >/dev/null
done
for kind in baseline native; do
    echo "== native_vs_baseline: duo-bench ($kind) ${opts[*]}"
    "build/bench-$kind/bin/duo-bench" --out "$out/$kind" "${opts[@]}" \
        >"$out/$kind.log"
done

python3 - "$out" "${opts[*]}" <<'EOF'
import csv, sys
out, opts = sys.argv[1], sys.argv[2]
def rows(kind):
    with open(f"{out}/{kind}/bench-openmp.csv") as f:
        return {(r["group"], r["what"], r["size"]): r for r in csv.DictReader(f)}
base, nat = rows("baseline"), rows("native")
lines = ["# Native tuning against the portable baseline (openmp build)", "",
         "Command: `bash profiles/native_vs_baseline.sh " + out + "` "
         "(duo-bench " + opts + " in build/bench-baseline, "
         "-DDUO_NATIVE=OFF, and build/bench-native, -DDUO_NATIVE=ON).",
         "Each build's own report: `baseline/bench-openmp.md`, "
         "`native/bench-openmp.md` (machine, load, method).", "",
         "| group | what | size | baseline ms | native ms | baseline / native |",
         "|---|---|---|---|---|---|"]
ratios = []
for key, b in base.items():
    n = nat.get(key)
    if n is None:
        continue
    tb, tn = float(b["duo_ms"]), float(n["duo_ms"])
    r = tb / tn if tn > 0 else float("nan")
    ratios.append(r)
    lines.append(f"| {key[0]} | {key[1]} | {key[2]} | {tb:.4g} | {tn:.4g} | {r:.3f} |")
if ratios:
    ratios.sort()
    mid = ratios[len(ratios) // 2]
    lines += ["", f"{len(ratios)} rows; baseline / native: median {mid:.3f}, "
              f"range {ratios[0]:.3f} to {ratios[-1]:.3f}."]
with open(f"{out}/native-vs-baseline.md", "w") as f:
    f.write("\n".join(lines) + "\n")
print("\n".join(lines[-2:]))
EOF
echo "native_vs_baseline: wrote $out/native-vs-baseline.md"
