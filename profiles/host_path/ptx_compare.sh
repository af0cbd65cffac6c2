#!/usr/bin/env bash
# ptx_compare.sh OLD_SOURCE_TREE
#
# Does carrying the host path change the GPU code?  Compiles the kernels
# of a few apps and of the cg solver to PTX (compute_90) from an older
# source tree (e.g. `git archive <commit> | tar -x -C old`) and from this
# one, drops comments, symbol names and parameter names, and prints how
# many lines differ.  Needs nvcc only (no GPU).
set -euo pipefail
old=$(cd "${1:?usage: ptx_compare.sh OLD_SOURCE_TREE}" && pwd)
new=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
norm() {
    grep -vE '^\s*//|^\s*$|\.version|\.target|\.address_size' "$1" |
        sed -E 's/_Z[A-Za-z0-9_]+/SYM/g; s/\b[a-z_]+_param_[0-9]+/PARAM/g'
}
for f in src/apps/saxpy.c src/apps/heat.c src/apps/julia.c \
         src/apps/nearest.c src/solvers/cg_solver.c; do
    b=$(basename "$f" .c)
    for side in old new; do
        tree=${!side}
        nvcc -std=c++17 -O3 -ptx -arch=compute_90 -x cu -DDUO_BACKEND_CUDA=1 \
            -I"$tree/include" -I"$tree/src" -I"$tree/src/apps" \
            -I"$tree/src/solvers" -Xcompiler=-fopenmp,-ffp-contract=off \
            "$tree/$f" -o "$tmp/$side.ptx"
        norm "$tmp/$side.ptx" >"$tmp/$side.txt"
    done
    echo "$f: $(grep -c . "$tmp/new.txt") PTX lines, $(diff "$tmp/old.txt" "$tmp/new.txt" | grep -c '^[<>]') differ:"
    diff "$tmp/old.txt" "$tmp/new.txt" | grep '^[<>]' | sed 's/^/    /' || true
done
