#!/bin/bash
# Build and run math_probe.cu on a machine with a GPU (sm_90), from the
# repository root:
#   bash profiles/math/probe/probe.sh [FUNCS]         e.g. "sinf,cosf,"
#   HEADERS=DIR bash profiles/math/probe/probe.sh     headers in DIR/duo/
#                                                     first (an experiment)
# FUNCS is a comma-terminated list of names (default: every float
# function; the double ones, FUNCS_D in math_probe.cu, only when named).
set -eu
out=${TMPDIR:-/tmp}/duo_math_probe
nvcc -O3 -arch=sm_90 --fmad=false -std=c++17 -Xcompiler -fopenmp \
    -DDUO_BACKEND_CUDA=1 ${HEADERS:+-I"$HEADERS"} -Iinclude \
    -Xptxas -v profiles/math/probe/math_probe.cu -o "$out" 2> "$out.ptxas"
# registers from ptxas: duo's kernels (d_), CUDA's (c_), duo's with the
# 32-bit index (e_)
awk '/Compiling entry/ { match($0, /_Z[0-9]+/); len = substr($0, RSTART + 2, RLENGTH - 2)
                         n = substr($0, RSTART + RLENGTH, len) }
     /Used [0-9]+ registers/ { match($0, /Used [0-9]+/)
                               printf "%s=%s ", n, substr($0, RSTART + 5, RLENGTH - 5) }' \
    "$out.ptxas" | tr ' ' '\n' | grep -v '^$' | sort | tr '\n' ' '
echo
"$out" "$@"
