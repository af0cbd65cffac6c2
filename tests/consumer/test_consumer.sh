#!/usr/bin/env bash
# test_consumer.sh BUILD_DIR BACKEND WORK_DIR [EARLIER_BUILD_DIR...]
#
# A user's project outside the tree, against installed duo packages, must
# get duo's arithmetic on every route and backend: installs BUILD_DIR and
# each EARLIER_BUILD_DIR (other backends, e.g. ../serial and ../openmp,
# which `make test` has just built) into WORK_DIR/prefix, then builds
# tests/consumer/ for each backend installed, with CMake (find_package +
# duo_add_executable; no build type, no flags) and with pkg-config (the
# Makefile beside this script), and runs each build:
#   serial once, openmp with 1 and 2 threads, cuda on its host path
#   (DUO_DEVICE=cpu) with 1 and 2 threads and on the GPU (DUO_DEVICE=gpu;
#   skipped, and said so, where there is none).
# Each run checks its outputs against the host reference itself; here
# every dump must equal the first one bit for bit.  The compile lines of
# the kernel source must carry the contraction-off flags, duo's CPU
# target and (CMake, no build type) an -O, and no -march=native; on
# x86-64 its object must not call fmaf (fma() is one instruction).
# Bad input first: a kernel source in C++ and a program linking two
# backends must be refused at configure time.
#
# Environment: CMAKE, CC, NVCC, CUDA_ARCHS (CMAKE_CUDA_ARCHITECTURES of
# the cuda build, commas for semicolons).  Exits 0 when every step passed.
set -euo pipefail
build=$1 backend=$2 work=$3
shift 3
here=$(cd "$(dirname "$0")" && pwd)
cmake=${CMAKE:-cmake}
cc=${CC:-cc}
nvcc=${NVCC:-nvcc}
# What a user's environment could add would not be "no flags".
unset CMAKE_BUILD_TYPE CFLAGS CUDAFLAGS CPPFLAGS

step() { printf '\n== test_consumer: %s\n' "$*"; }
die() { echo "test_consumer: FAIL: $*"; exit 1; }
cache_value() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }

# CUDA_ARCHS ("90-real,80-virtual") as nvcc options.
nvcc_arch() {
    local out="" a num archs
    IFS=',' read -r -a archs <<<"${CUDA_ARCHS:-90-real,80-virtual}"
    for a in "${archs[@]}"; do
        num=${a%%-*}
        case $a in
            native|all|all-major) out+=" -arch=$a" ;;
            *-real) out+=" -gencode=arch=compute_$num,code=sm_$num" ;;
            *-virtual) out+=" -gencode=arch=compute_$num,code=compute_$num" ;;
            *) out+=" -gencode=arch=compute_$num,code=sm_$num"
               out+=" -gencode=arch=compute_$num,code=compute_$num" ;;
        esac
    done
    echo "${out# }"
}

rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix

# Install every build given; the backends in the order given.
backends=()
for b in "$@" "$build"; do
    if [ ! -f "$b/CMakeCache.txt" ]; then
        echo "test_consumer: $b is not a configured build: left out"
        continue
    fi
    bb=$(cache_value "$b" DUO_BACKEND)
    step "install $b ($bb) into $prefix"
    "$cmake" --install "$b" --prefix "$prefix" >/dev/null
    backends+=("$bb")
done
# duo's CPU target, as this build chose it: the flag its consumers get.
cpu_flag=
if [ "$(uname -m)" = x86_64 ] && [ "$(cache_value "$build" DUO_CPU_BASELINE)" = ON ] &&
   [ "$(cache_value "$build" DUO_NATIVE)" = OFF ]; then
    cpu_flag='-march=x86-64-v3|-mfma'
fi

# check_line ROUTE BACKEND LINE: the kernel source's compile command.
check_line() {
    local route=$1 b=$2 line=$3
    [ -n "$line" ] || die "$route $b: no compile line for main.c found"
    echo "$route $b: $line"
    case $line in *-march=native*)
        die "$route $b: -march=native in the compile line" ;; esac
    case $line in *-ffp-contract=off*) ;; *)
        die "$route $b: no -ffp-contract=off in the compile line" ;; esac
    if [ "$b" = cuda ]; then
        case $line in *--fmad=false*) ;; *)
            die "$route $b: no --fmad=false in the compile line" ;; esac
    fi
    if [ -n "$cpu_flag" ] && ! grep -Eq -- "$cpu_flag" <<<"$line"; then
        die "$route $b: duo's CPU target ($cpu_flag) missing"
    fi
    if [ "$route" = cmake ] && ! grep -Eq -- ' -O[1-3s]? ' <<<"$line "; then
        die "$route $b: no -O: kernels of a project without a build type" \
            "must be optimized"
    fi
}

# check_fma ROUTE BACKEND OBJECT: fmaf compiled to an instruction.
check_fma() {
    [ -n "$cpu_flag" ] || return 0
    if ! command -v nm >/dev/null 2>&1; then
        echo "test_consumer: nm not found: fmaf not checked"
        return 0
    fi
    if nm -u "$3" | grep -Eq '[^a-z]fmaf?(@|$)|^ *U fmaf?$'; then
        die "$1 $2: $3 calls fmaf: fma() is not one instruction"
    fi
}

reference_dump=
dumps=0
# run_consumer LABEL PROGRAM ENV...: run it, compare its dump (77, no
# GPU, skips a GPU run only).
run_consumer() {
    local label=$1 program=$2 rc=0
    shift 2
    local dump=$work/dump-${label//[^A-Za-z0-9]/-}.bin
    env -u DUO_DEVICE "$@" "$program" "$dump" || rc=$?
    if [ "$rc" -eq 77 ] && [[ $label == *GPU ]]; then
        echo "test_consumer: $label: skipped: no GPU here"
        return 0
    fi
    [ "$rc" -eq 0 ] || die "$label: exit status $rc"
    if [ -z "$reference_dump" ]; then
        reference_dump=$dump reference_label=$label
    elif ! cmp -s "$reference_dump" "$dump"; then
        echo "first differing bytes (offset, $reference_label, $label; octal):"
        cmp -l "$reference_dump" "$dump" | head -5 || true
        die "$label differs from $reference_label"
    fi
    dumps=$((dumps + 1))
    echo "test_consumer: $label: the same bits as $reference_label"
}

# run_all ROUTE BACKEND PROGRAM
run_all() {
    local route=$1 b=$2 p=$3
    case $b in
        serial) run_consumer "$route $b" "$p" ;;
        openmp) for t in 1 2; do
                    run_consumer "$route $b OMP_NUM_THREADS=$t" "$p" OMP_NUM_THREADS=$t
                done ;;
        cuda) for t in 1 2; do
                  run_consumer "$route $b host path OMP_NUM_THREADS=$t" "$p" \
                      DUO_DEVICE=cpu OMP_NUM_THREADS=$t
              done
              run_consumer "$route $b GPU" "$p" DUO_DEVICE=gpu ;;
    esac
}

# expect_refused NAME WANTED CMAKELISTS: configuring that project fails
# with a message that contains WANTED.
expect_refused() {
    local dir=$work/refused-$1
    mkdir -p "$dir/src"
    printf '%s\n' "$3" >"$dir/src/CMakeLists.txt"
    echo 'int main(void) { return 0; }' >"$dir/src/main.c"
    cp "$dir/src/main.c" "$dir/src/kernel.cpp"
    if "$cmake" -S "$dir/src" -B "$dir/build" -DCMAKE_PREFIX_PATH="$prefix" \
        -DCMAKE_C_COMPILER="$cc" >"$dir.log" 2>&1; then
        cat "$dir.log"
        die "$1: configured, but should have been refused"
    fi
    grep -qF -- "$2" "$dir.log" || { cat "$dir.log"; die "$1: not refused with \"$2\""; }
    echo "test_consumer: $1: refused: $(grep -F -- "$2" "$dir.log" | head -1 | sed 's/^ *//')"
}
cpu_backends=()
for b in "${backends[@]}"; do
    [ "$b" = cuda ] || cpu_backends+=("$b")
done
if [ ${#cpu_backends[@]} -gt 0 ]; then
    step "bad input: a C++ kernel source, two backends in one program"
    expect_refused cxx-kernel "kernel.cpp would be compiled by the C++ compiler" "
cmake_minimum_required(VERSION 3.24)
project(cxx_kernel C CXX)
set(DUO_BACKEND ${cpu_backends[0]})
find_package(duo CONFIG REQUIRED)
duo_add_executable(k SOURCES main.c kernel.cpp)"
fi
if [ ${#cpu_backends[@]} -gt 1 ]; then
    expect_refused two-backends "INTERFACE_DUO_BACKEND property of" "
cmake_minimum_required(VERSION 3.24)
project(two_backends C)
find_package(duo CONFIG REQUIRED COMPONENTS ${cpu_backends[*]})
add_executable(both main.c)
target_link_libraries(both PRIVATE duo::${cpu_backends[0]} duo::${cpu_backends[1]})"
fi

export PKG_CONFIG_PATH=$prefix/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
for b in "${backends[@]}"; do
    step "CMake consumer, $b: no build type, no flags"
    dir=$work/cmake-$b
    args=(-S "$here" -B "$dir" -DCMAKE_PREFIX_PATH="$prefix"
          -DDUO_BACKEND="$b" -DCMAKE_C_COMPILER="$cc")
    if [ "$b" = cuda ]; then
        args+=(-DCMAKE_CUDA_COMPILER="$(command -v "$nvcc")")
        [ -n "${CUDA_ARCHS:-}" ] && args+=(-DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCHS//,/;}")
    fi
    "$cmake" "${args[@]}" >"$dir.log" 2>&1 || { cat "$dir.log"; die "configure"; }
    grep -F 'duo:' "$dir.log" || true
    "$cmake" --build "$dir" --verbose >"$dir.build.log" 2>&1 ||
        { cat "$dir.build.log"; die "cmake --build $dir"; }
    check_line cmake "$b" "$(grep -E -- '-c .*main\.c|main\.c\.o -c ' "$dir.build.log" | head -1)"
    check_fma cmake "$b" "$dir/CMakeFiles/fp_consumer.dir/main.c.o"
    run_all cmake "$b" "$dir/fp_consumer"

    step "pkg-config consumer, $b: make -f tests/consumer/Makefile"
    dir=$work/pc-$b
    mkdir -p "$dir"
    make_args=(-f "$here/Makefile" BACKEND="$b" OUT="$dir" CC="$cc" NVCC="$nvcc")
    [ "$b" = cuda ] && make_args+=(NVCC_ARCH="$(nvcc_arch)")
    make "${make_args[@]}" >"$dir.build.log" 2>&1 ||
        { cat "$dir.build.log"; die "make $b"; }
    check_line pkg-config "$b" "$(grep -E -- '-o [^ ]*/main\.o ' "$dir.build.log" | head -1)"
    check_fma pkg-config "$b" "$dir/main.o"
    run_all pkg-config "$b" "$dir/fp_consumer"
done
echo
echo "test_consumer: PASS: $dumps runs (${backends[*]}; CMake and pkg-config)," \
     "the same bits as $reference_label"
