#!/usr/bin/env bash
# run_fuzz.sh [TARGET...]   (make fuzz; FUZZ_SECONDS=60 each by default)
#
# Builds the libFuzzer targets of tests/fuzz/ with clang, ASan and UBSan
# into build/fuzz (serial backend) and runs each for FUZZ_SECONDS, from
# the seed corpus in tests/fuzz/corpus/<target>/ (copied to
# build/fuzz/corpus/<target>/, which grows; the seeds are not touched).
# A crash, leak, sanitizer report or timeout stops that target and fails
# the run; the input is saved as build/fuzz/crashes/<target>-crash-* --
# fix the bug, then add the input to tests/fuzz/regressions/<target>/,
# where fuzz_replay_<target> (label fuzz) runs it with every build.
#
# Needs clang with libFuzzer (Debian: clang, libclang-rt-dev); if they are
# missing and apt-get is usable, they are installed.
#
# Environment: FUZZ_SECONDS (60), FUZZ_JOBS (build jobs), CMAKE.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-$(nproc 2>/dev/null || echo 2)}
cmake=${CMAKE:-cmake}
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(fuzz_dump fuzz_args)
case $seconds in ''|*[!0-9]*|0)
    echo "run_fuzz.sh: FUZZ_SECONDS='$seconds': expected a whole number of seconds >= 1" >&2
    exit 2 ;;
esac

clang_fuzzer_works() {
    command -v clang >/dev/null 2>&1 || return 1
    local tmp
    tmp=$(mktemp -d)
    printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' > "$tmp/t.c"
    clang -fsanitize=fuzzer,address,undefined "$tmp/t.c" -o "$tmp/t" >/dev/null 2>&1
    local rc=$?
    rm -rf "$tmp"
    return $rc
}
if ! clang_fuzzer_works; then
    if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
        echo "run_fuzz.sh: installing clang and libclang-rt-dev (libFuzzer)"
        apt-get update -qq && apt-get install -y -qq clang libclang-rt-dev
    fi
    clang_fuzzer_works || {
        echo "run_fuzz.sh: clang with libFuzzer is needed (Debian: apt-get install clang libclang-rt-dev)" >&2
        exit 1
    }
fi

dir=build/fuzz
san="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
CC=clang "$cmake" -S . -B "$dir" -DDUO_BACKEND=serial -DDUO_FUZZ=ON \
    -DCMAKE_BUILD_TYPE=RelWithDebInfo -DDUO_BUILD_BENCH=OFF \
    -DDUO_BUILD_APPS=OFF -DCMAKE_C_FLAGS="$san" \
    -DCMAKE_EXE_LINKER_FLAGS="$san" >/dev/null
"$cmake" --build "$dir" -j "$jobs" --target "${targets[@]}"

export ASAN_OPTIONS="allocator_may_return_null=1:detect_leaks=1${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
mkdir -p "$dir/crashes"
summary=()
failed=0
for t in "${targets[@]}"; do
    corpus=$dir/corpus/$t
    mkdir -p "$corpus"
    cp -n tests/fuzz/corpus/"$t"/* "$corpus"/ 2>/dev/null || true
    echo "== run_fuzz: $t for ${seconds}s"
    rc=0
    # -close_fd_mask=3: the parser prints usage text for most inputs.
    "$dir/bin/$t" "$corpus" -max_total_time="$seconds" -timeout=10 \
        -rss_limit_mb=2048 -max_len=4096 -close_fd_mask=3 \
        -artifact_prefix="$dir/crashes/$t-" -print_final_stats=1 \
        > "$dir/$t.log" 2>&1 || rc=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/$t.log" | tail -1)
    if [ "$rc" -eq 0 ]; then
        summary+=("$(printf '%-10s %8ss %12s runs  %s' "$t" "$seconds" "${runs:-?}" "no crash")")
    else
        failed=1
        tail -40 "$dir/$t.log"
        summary+=("$(printf '%-10s %8ss %12s runs  %s' "$t" "$seconds" "${runs:-?}" "FAILED (exit $rc; log $dir/$t.log, input in $dir/crashes/)")")
    fi
done
echo
echo "run_fuzz summary"
printf '%s\n' "${summary[@]}"
exit $failed
