#!/usr/bin/env bash
# run_cuda_profile.sh - profile every duo app of the CUDA build: duo's
# built-in profiler always, Nsight Systems and Nsight Compute where they
# are installed.
#
#   ./profiles/run_cuda_profile.sh        (make profile-cuda)
#
# Builds with `make cuda` (build/cuda), runs each app of build/cuda/bin
# (every duo-* program but duo-compare, duo-profile-diff and duo-bench,
# with the arguments of profiles/apps.sh: the same as on the CPU builds)
# and writes to profiles/cuda/:
#
#   <app>.csv              DUO_PROFILE=csv: duo's own profile (CUPTI trace),
#                          for duo-profile-diff against profiles/serial etc.
#   <app>.log              the app's output
#   <app>.nsys-rep         nsys profile --trace=cuda,nvtx, run with
#                          DUO_PROFILE=nvtx so every duo region is an NVTX
#                          range named as in the CSV
#   <app>.nsys-stats.txt   nsys stats: GPU kernel, memory copy and NVTX
#                          range summaries of that report
#   <app>.ncu.txt          ncu: the metrics below for a few launches of
#                          the app's kernels
#
# Fails loudly (exit 1) when the CUDA build fails or an app fails (no GPU
# included).  A missing nsys or ncu, or one that fails (e.g. no permission
# for the GPU's performance counters, ERR_NVGPUCTRPERM), is reported in
# one line and skipped.
#
# Nsight Compute metric set (per profiled kernel launch):
#   gpu__time_duration.sum                          kernel time
#   dram__bytes.sum.per_second                      achieved DRAM bandwidth
#   dram__throughput.avg.pct_of_peak_sustained_elapsed
#                                                   ... as % of peak
#   smsp__sass_thread_inst_executed_op_{fadd,fmul,ffma}_pred_on.sum
#   smsp__sass_thread_inst_executed_op_{dadd,dmul,dfma}_pred_on.sum
#                                                   FP32 / FP64 instructions
#                          executed by active threads: FLOPs = add + mul +
#                          2 * fma, FLOP rate = FLOPs / gpu__time_duration
#   sm__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed
#                                                   FP32 FMA rate per cycle
#   sm__warps_active.avg.pct_of_peak_sustained_active
#                                                   achieved occupancy
# Kernels: --kernel-name regex:<the app's kernels, profiles/apps.sh>
# (NCU_KERNEL_REGEX overrides), --launch-skip NCU_LAUNCH_SKIP (default 2:
# past the warm-up) --launch-count NCU_LAUNCH_COUNT (default 4).  ncu
# serializes and replays each profiled kernel, so its run takes longer;
# its times are not the CSV's.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
# shellcheck source=profiles/apps.sh
. profiles/apps.sh
out=profiles/cuda
bin=build/cuda/bin

METRICS=(
    gpu__time_duration.sum
    dram__bytes.sum.per_second
    dram__throughput.avg.pct_of_peak_sustained_elapsed
    smsp__sass_thread_inst_executed_op_fadd_pred_on.sum
    smsp__sass_thread_inst_executed_op_fmul_pred_on.sum
    smsp__sass_thread_inst_executed_op_ffma_pred_on.sum
    smsp__sass_thread_inst_executed_op_dadd_pred_on.sum
    smsp__sass_thread_inst_executed_op_dmul_pred_on.sum
    smsp__sass_thread_inst_executed_op_dfma_pred_on.sum
    sm__sass_thread_inst_executed_op_ffma_pred_on.sum.per_cycle_elapsed
    sm__warps_active.avg.pct_of_peak_sustained_active
)

# The newest of: on PATH, then the install folders.
find_tool() { # name glob...
    local name=$1 found
    shift
    if found=$(command -v "$name" 2>/dev/null); then
        printf '%s\n' "$found"
        return 0
    fi
    found=$(for c in "$@"; do [[ -f "$c" && -x "$c" ]] && printf '%s\n' "$c"; done |
        sort -V | tail -1)
    [[ -n "$found" ]] && printf '%s\n' "$found"
}

# --- build (loud) -------------------------------------------------------------
echo "run_cuda_profile.sh: make cuda"
${MAKE:-make} --no-print-directory cuda

mapfile -t apps < <(duo_profile_apps "$bin")
if [[ ${#apps[@]} -eq 0 ]]; then
    echo "run_cuda_profile.sh: no duo-* apps in $bin (DUO_BUILD_APPS=OFF?)" >&2
    exit 1
fi
# The folder holds this run's files only (no stale apps for the diff).
rm -rf "$out"
mkdir -p "$out"

nsys=$(find_tool nsys /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems*/bin/nsys \
    /usr/local/cuda/nsight-systems*/bin/nsys || true)
ncu=$(find_tool ncu /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute*/ncu \
    /usr/local/cuda/nsight-compute*/ncu || true)
[[ -n "$nsys" ]] || echo "run_cuda_profile.sh: nsys skipped: Nsight Systems not" \
    "found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-systems*/bin)"
[[ -n "$ncu" ]] || echo "run_cuda_profile.sh: ncu skipped: Nsight Compute not" \
    "found (PATH, /usr/local/cuda/bin, /opt/nvidia/nsight-compute*)"

failed=()
for app in "${apps[@]}"; do
    args=$(duo_profile_args "$app")
    read -r -a argv <<<"$args"
    echo
    echo "run_cuda_profile.sh: [cuda] $app $args"

    # 1. duo's built-in profiler: must work.
    rc=0
    DUO_PROFILE=csv DUO_PROFILE_FILE="$out/$app.csv" \
        "$bin/$app" "${argv[@]}" >"$out/$app.log" 2>&1 || rc=$?
    cat "$out/$app.log"
    if [[ $rc -ne 0 || ! -s "$out/$app.csv" ]]; then
        echo "run_cuda_profile.sh: $app FAILED (exit $rc$([[ -s "$out/$app.csv" ]] ||
            echo ", no $out/$app.csv")); output in $out/$app.log" >&2
        failed+=("$app (exit $rc)")
        continue
    fi
    echo "run_cuda_profile.sh: wrote $out/$app.csv"

    # 2. Nsight Systems: a timeline with duo's regions as NVTX ranges.
    if [[ -n "$nsys" ]]; then
        if DUO_PROFILE=nvtx "$nsys" profile --trace=cuda,nvtx --sample=none \
            --cpuctxsw=none --force-overwrite=true -o "$out/$app" \
            "$bin/$app" "${argv[@]}" >>"$out/$app.log" 2>&1 &&
            [[ -f "$out/$app.nsys-rep" ]]; then
            # Report names changed in Nsight Systems 2023.x; try both.
            if "$nsys" stats -q --report cuda_gpu_kern_sum \
                    --report cuda_gpu_mem_time_sum --report nvtx_sum \
                    "$out/$app.nsys-rep" >"$out/$app.nsys-stats.txt" 2>&1 ||
                "$nsys" stats -q --report gpukernsum --report gpumemtimesum \
                    --report nvtxppsum "$out/$app.nsys-rep" \
                    >"$out/$app.nsys-stats.txt" 2>&1; then
                echo "run_cuda_profile.sh: wrote $out/$app.nsys-rep," \
                     "$out/$app.nsys-stats.txt"
            else
                echo "run_cuda_profile.sh: nsys stats failed for $app (see" \
                     "$out/$app.nsys-stats.txt); the .nsys-rep is kept"
            fi
        else
            echo "run_cuda_profile.sh: nsys skipped for $app: nsys profile" \
                 "failed (its output is at the end of $out/$app.log)"
        fi
    fi

    # 3. Nsight Compute: the metric set above, a few launches.
    if [[ -n "$ncu" ]]; then
        regex=$(duo_profile_kernels "$app")
        metrics=$(IFS=,; echo "${METRICS[*]}")
        if "$ncu" --metrics "$metrics" --kernel-name "regex:$regex" \
                --launch-skip "${NCU_LAUNCH_SKIP:-2}" \
                --launch-count "${NCU_LAUNCH_COUNT:-4}" \
                "$bin/$app" "${argv[@]}" >"$out/$app.ncu.txt" 2>&1 &&
            ! grep -q '==ERROR==' "$out/$app.ncu.txt"; then
            if grep -q 'No kernels were profiled' "$out/$app.ncu.txt"; then
                echo "run_cuda_profile.sh: ncu profiled no kernel of $app" \
                     "(regex:$regex); set NCU_KERNEL_REGEX"
            else
                echo "run_cuda_profile.sh: wrote $out/$app.ncu.txt"
            fi
        else
            echo "run_cuda_profile.sh: ncu skipped for $app: ncu failed:" \
                 "$(grep -m1 '==ERROR==' "$out/$app.ncu.txt" || tail -1 "$out/$app.ncu.txt")"
        fi
    fi
done

if [[ ${#failed[@]} -gt 0 ]]; then
    echo
    echo "run_cuda_profile.sh: ${#failed[@]} of ${#apps[@]} apps FAILED on cuda:" >&2
    printf '  %s\n' "${failed[@]}" >&2
    exit 1
fi
echo
echo "run_cuda_profile.sh: cuda: ${#apps[@]} apps profiled into $out/"
