# shellcheck shell=bash
# apps.sh - sourced by run_gprof.sh and run_cuda_profile.sh: which apps
# to profile and with what arguments, the same on every backend so that
# duo-profile-diff compares like with like.

# duo_profile_apps BINDIR: the names of the apps there, one a line: every
# duo-* program except the tools (duo-compare, duo-profile-diff, duo-bench).
duo_profile_apps() {
    local exe name
    for exe in "$1"/duo-*; do
        name=${exe##*/}
        case "$name" in
            duo-compare|duo-profile-diff|duo-bench) continue ;;
            *.*) continue ;; # not a program (e.g. a leftover file)
        esac
        [[ -f "$exe" && -x "$exe" ]] && printf '%s\n' "$name"
    done
    return 0
}

# duo_profile_args APP: its arguments, sizes that take about a second on
# the 2-core CPU machine.  An app not listed runs with its defaults.
# PROFILE_ARGS_<app with - as _>="..." overrides, e.g.
#   PROFILE_ARGS_duo_gemm="256 --reps 3" make profile-serial
duo_profile_args() {
    local var="PROFILE_ARGS_${1//-/_}"
    if [[ -n "${!var+set}" ]]; then
        printf '%s\n' "${!var}"
        return
    fi
    case "$1" in
        duo-saxpy) echo "16777216 --reps 100" ;;  # 2^24 floats, 201 MB moved a rep
        duo-reduce) echo "16777216 --reps 100" ;; # 2^24 floats, 67 MB read a rep
        duo-gemm) echo "1024 --reps 20" ;;        # 2.1 GFLOP a rep
        *) echo "" ;;
    esac
}

# duo_profile_kernels APP: the ncu --kernel-name regex for the app's own
# kernels and duo's (NCU_KERNEL_REGEX overrides; "." takes every kernel).
duo_profile_kernels() {
    if [[ -n "${NCU_KERNEL_REGEX:-}" ]]; then
        printf '%s\n' "$NCU_KERNEL_REGEX"
        return
    fi
    case "$1" in
        duo-saxpy) echo "^saxpy_kernel$" ;;
        duo-reduce) echo "^reduce_" ;;      # reduce_chunks, reduce_partials
        duo-gemm) echo "^gemm_" ;;          # gemm_f32_kernel, gemm_f64_kernel
        *) echo "." ;;
    esac
}
