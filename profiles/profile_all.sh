#!/usr/bin/env bash
# profile_all.sh - what `make profile` runs: profile every build this
# machine can run, then compare them with duo-profile-diff.
#
#   ./profiles/profile_all.sh        (or: make profile)
#
# 1. profiles/run_gprof.sh serial, then openmp (gprof + built-in CSV);
# 2. profiles/run_cuda_profile.sh when nvcc is on PATH and `nvidia-smi -L`
#    lists a GPU (otherwise one line says why it is skipped);
# 3. tools/profile_diff.py serial vs openmp (and serial vs cuda,
#    openmp vs cuda), the tables into profiles/diff-<a>-vs-<b>.md and one
#    chart per app into profiles/charts/<a>-vs-<b>/<app>.png.
# Stops at the first failure.
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
python=${PYTHON:-python3}
start=$(date +%s)

# MAKE may carry options: word splitting wanted.
# shellcheck disable=SC2086
${MAKE:-make} --no-print-directory profile-serial
# shellcheck disable=SC2086
${MAKE:-make} --no-print-directory profile-openmp

backends=(serial openmp)
if ! command -v nvcc >/dev/null 2>&1; then
    echo "profile_all.sh: profile-cuda skipped: no CUDA toolkit (nvcc) on PATH"
elif ! command -v nvidia-smi >/dev/null 2>&1 ||
    ! nvidia-smi -L 2>/dev/null | grep -q '^GPU [0-9]'; then
    echo "profile_all.sh: profile-cuda skipped: nvcc found, but nvidia-smi -L" \
         "lists no GPU"
else
    # shellcheck disable=SC2086
    ${MAKE:-make} --no-print-directory profile-cuda
    backends+=(cuda)
fi

# --- compare -----------------------------------------------------------------
mkdir -p profiles/charts
pairs=("serial openmp")
if [[ " ${backends[*]} " == *" cuda "* ]]; then
    pairs+=("serial cuda" "openmp cuda")
fi
for pair in "${pairs[@]}"; do
    read -r a b <<<"$pair"
    md="profiles/diff-$a-vs-$b.md"
    charts="profiles/charts/$a-vs-$b"
    rm -rf "$charts"
    {
        echo "# duo profiles: $a (A) vs $b (B)"
        echo
        echo "Written by \`make profile\` with:"
        echo
        echo "    python3 tools/profile_diff.py profiles/$a profiles/$b --chart-dir $charts"
        echo
        echo "Each app ran once per build with the arguments shown on its A/B lines"
        echo "(profiles/apps.sh), in the -pg build of profiles/run_gprof.sh for the CPU"
        echo "backends.  profiles/README.md says how to read the tables."
        echo
    } >"$md.tmp"
    if ! "$python" tools/profile_diff.py "profiles/$a" "profiles/$b" \
        --chart-dir "$charts" >>"$md.tmp"; then
        rm -f "$md.tmp"
        echo "profile_all.sh: profile_diff.py failed on profiles/$a vs profiles/$b" >&2
        exit 1
    fi
    mv "$md.tmp" "$md"
    echo "profile_all.sh: wrote $md"
done

echo
echo "profile_all.sh: profiled ${backends[*]} in $(( $(date +%s) - start )) s;" \
     "see profiles/README.md"
