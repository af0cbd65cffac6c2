#!/usr/bin/env bash
# test_install.sh BUILD_DIR BACKEND WORK_DIR [ALSO_BUILD_DIR]
#
# Installs the duo build in BUILD_DIR into WORK_DIR/prefix with
# `cmake --install`, then builds and runs tests/install/consumer/ against
# that prefix twice: as a CMake project (find_package(duo) +
# duo_add_executable) and with a plain compiler call using
# `pkg-config duo-<backend>`.  ALSO_BUILD_DIR, when it holds a configured
# build of another CPU backend, is installed into the same prefix first
# and linked too (backends side by side).  In a CUDA build on a machine
# without a GPU the consumers are compiled but their run skips (77).
#
# Environment: CMAKE (cmake), CC (cc), NVCC (nvcc), for the CUDA consumer
# CUDA_ARCHS (CMAKE_CUDA_ARCHITECTURES, commas for semicolons).  Exits 0
# when every step passed.
set -euo pipefail
build=$1 backend=$2 work=$3 also=${4:-}
here=$(cd "$(dirname "$0")" && pwd)
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
nvcc=${NVCC:-nvcc}

step() { printf '\n== test_install: %s\n' "$*"; }
run_consumer() { # program; 77 (no GPU) is accepted for cuda only
    local rc=0
    "$1" || rc=$?
    if [ "$rc" -eq 77 ] && [ "$backend" = cuda ]; then
        echo "test_install: $1 skipped its run: no GPU (compiled and linked)"
        return 0
    fi
    return "$rc"
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

also_backend=
if [ -n "$also" ] && [ -f "$also/CMakeCache.txt" ] && [ "$backend" != cuda ]; then
    also_backend=$(sed -n 's/^DUO_BACKEND:STRING=//p' "$also/CMakeCache.txt")
    if [ "$also_backend" = "$backend" ] || [ -z "$also_backend" ]; then
        also_backend=
    else
        step "install $also ($also_backend) into $prefix"
        "$cmake" --install "$also" --prefix "$prefix" >/dev/null
    fi
fi
step "install $build ($backend) into $prefix"
"$cmake" --install "$build" --prefix "$prefix" >/dev/null
for f in include/duo.h include/duo/version.h include/duo/kernel.h \
         lib/cmake/duo/duoConfig.cmake lib/cmake/duo/duoConfigVersion.cmake \
         lib/cmake/duo/Duo.cmake lib/cmake/duo/duo-$backend-targets.cmake \
         lib/pkgconfig/duo-$backend.pc bin/duo-compare bin/duo-profile-diff \
         share/duo/profile_diff.py libexec/duo/$backend/duo-saxpy; do
    [ -e "$prefix/$f" ] || { echo "test_install: $prefix/$f not installed"; exit 1; }
done
ls "$prefix"/lib*/libduo_"$backend".* >/dev/null ||
    { echo "test_install: no libduo_$backend in $prefix/lib"; exit 1; }
# The installed tools run from the prefix.
"$prefix/bin/duo-compare" --help >/dev/null
if command -v "${PYTHON:-python3}" >/dev/null 2>&1; then
    "$prefix/bin/duo-profile-diff" --help >/dev/null
fi

step "CMake consumer: find_package(duo) with DUO_BACKEND=$backend${also_backend:+, COMPONENTS $also_backend}"
cmake_args=(-S "$here/consumer" -B "$work/cmake" -DCMAKE_PREFIX_PATH="$prefix"
            -DDUO_BACKEND="$backend" -DCMAKE_C_COMPILER="$cc")
[ -n "$also_backend" ] && cmake_args+=(-DDUO_CONSUMER_ALSO="$also_backend")
if [ "$backend" = cuda ]; then
    cmake_args+=(-DCMAKE_CUDA_COMPILER="$(command -v "$nvcc")")
    [ -n "${CUDA_ARCHS:-}" ] && cmake_args+=(-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS//,/;}")
fi
"$cmake" "${cmake_args[@]}"
"$cmake" --build "$work/cmake"
run_consumer "$work/cmake/consumer"
[ -n "$also_backend" ] && run_consumer "$work/cmake/consumer_also"

step "pkg-config consumer: duo-$backend"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
pkg-config --exists duo-"$backend"
[ "$(pkg-config --modversion duo-"$backend")" = "$(sed -n \
  's/^#define DUO_VERSION_\(MAJOR\|MINOR\|PATCH\) \([0-9]*\)$/\2/p' \
  "$prefix/include/duo/version.h" | paste -sd.)" ] ||
    { echo "test_install: pkg-config version differs from duo/version.h"; exit 1; }
mkdir -p "$work/pc"
# shellcheck disable=SC2046  # pkg-config output is a list of flags
if [ "$backend" = cuda ]; then
    "$nvcc" -x cu -o "$work/pc/consumer" "$here/consumer/main.c" \
        -DEXPECTED_BACKEND='"cuda"' $(pkg-config --cflags --libs duo-cuda)
else
    "$cc" -std=c11 -Wall -Werror -o "$work/pc/consumer" "$here/consumer/main.c" \
        -DEXPECTED_BACKEND="\"$backend\"" $(pkg-config --cflags --libs duo-"$backend")
fi
run_consumer "$work/pc/consumer"
if [ -n "$also_backend" ]; then
    "$cc" -std=c11 -Wall -Werror -o "$work/pc/consumer_also" \
        "$here/consumer/main.c" -DEXPECTED_BACKEND="\"$also_backend\"" \
        $(pkg-config --cflags --libs duo-"$also_backend")
    run_consumer "$work/pc/consumer_also"
fi
echo
echo "test_install: PASS ($backend${also_backend:+ and $also_backend} from $prefix)"
