#!/usr/bin/env bash
# run_asan.sh BACKEND [ctest arguments...]  (make asan: serial and openmp)
#
# Builds BACKEND (serial or openmp) with AddressSanitizer and
# UndefinedBehaviorSanitizer into build/asan-BACKEND and runs its CTest
# suite there.  Any finding stops the program that made it
# (-fno-sanitize-recover=all, halt_on_error), so the test fails: the suite
# passes only with zero findings.  LeakSanitizer runs at every exit.
#
# Not run here: the install_consumer test (label install), which would
# link an instrumented library into a project built without the
# sanitizers; it checks packaging, not memory.
#
# The same configuration is the CMake preset asan-<backend>.
# Options, and why:
#   allocator_may_return_null=1  test_memory asks for 2^62 bytes on
#       purpose and expects DUO_ERROR_OUT_OF_MEMORY; by default ASan
#       aborts on such a request instead of returning NULL as malloc must.
#   detect_leaks=1, halt_on_error=1, print_stacktrace=1, abort_on_error=0
#       (exit status, not a core dump).
# No suppressions: libgomp (openmp build) produces no reports under ASan
# and UBSan; were one to appear it would go into tests/sanitize/ with a
# comment saying why (see valgrind-libgomp.supp for valgrind's).
#
# Environment: JOBS (build jobs, default nproc), CMAKE, CMAKE_FLAGS.
set -euo pipefail
backend=${1:?usage: run_asan.sh serial|openmp [ctest args...]}
shift
case $backend in serial|openmp) ;; *)
    echo "run_asan.sh: backend '$backend': expected serial or openmp" >&2
    exit 2 ;;
esac
cd "$(dirname "$0")/../.."
cmake=${CMAKE:-cmake}
jobs=${JOBS:-$(nproc 2>/dev/null || echo 2)}
dir=build/asan-$backend
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"

# shellcheck disable=SC2086  # CMAKE_FLAGS is a list of arguments
"$cmake" -S . -B "$dir" -DDUO_BACKEND="$backend" \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUO_BUILD_BENCH=OFF \
    -DCMAKE_C_FLAGS="$san" -DCMAKE_EXE_LINKER_FLAGS="$san" \
    -DCMAKE_SHARED_LINKER_FLAGS="$san" ${CMAKE_FLAGS:-}
"$cmake" --build "$dir" -j "$jobs"

export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1:halt_on_error=1:abort_on_error=0:print_stacktrace=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
cd "$dir"
ctest --output-on-failure -LE install -j "$jobs" "$@"
echo "run_asan.sh: $backend: ASan + UBSan suite passed, no findings"
