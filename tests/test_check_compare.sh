#!/usr/bin/env bash
# test_check_compare.sh - duo-compare on run folders of <duo/check.h>:
# verdicts, the first array that differs, --png, and damaged folders.
#
#   test_check_compare.sh <duo-compare> <test_check>
#
# test_check --runs writes the runs: a, same (a again) and b (a with the
# second dump of "u" 3 ulps off at [2,3], and e and k after it changed).
set -u
compare=$1
make_runs=$2

dir=$(mktemp -d "${TMPDIR:-/tmp}/duo-check-compare.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
"$make_runs" --runs "$dir" >"$dir/make.log" 2>&1
rc=$?
if [[ $rc -eq 77 ]]; then cat "$dir/make.log"; exit 77; fi
if [[ $rc -ne 0 ]]; then
    echo "FAIL: test_check --runs $dir"; cat "$dir/make.log"; exit 1
fi

failures=0
run() {
    cmd="duo-compare $*"
    out=$(cd "$dir" && "$compare" "$@" 2>&1)
    rc=$?
}
fail() {
    echo "FAIL [$cmd]: $1"
    printf '%s\n' "$out" | sed 's/^/    | /'
    failures=$((failures + 1))
}
expect_rc() { [[ $rc -eq $1 ]] || fail "expected exit $1, got $rc"; }
expect_out() {
    local s
    for s in "$@"; do grep -qF -- "$s" <<<"$out" || fail "output lacks: $s"; done
}
expect_no_out() { grep -qF -- "$1" <<<"$out" && fail "output has: $1"; return 0; }

run a same --exact
expect_rc 0
expect_out 'u f32[37x53]: PASS' 'u@1 f32[37x53]: PASS' 'e f64[101]: PASS' \
    'k i32[2x3x5]: PASS' 'z u64[4x0]: PASS' 'verdict: PASS'
expect_no_out 'first array that differs'

run b a --exact
expect_rc 1
expect_out 'u f32[37x53]: PASS' \
    'u@1 f32[37x53]: FAIL max_abs=' 'max_ulp=3 ' 'mismatches=1/1961 first=[2,3]' \
    'e f64[101]: FAIL' 'k i32[2x3x5]: FAIL' \
    'first array that differs: u@1' 'verdict: FAIL'
# Within 3 ulps, u@1 passes; e and k do not.
run b a --ulps 3
expect_rc 1
expect_out 'u@1 f32[37x53]: PASS' 'first array that differs: e'

# The picture of u@1 (the first failing 2-D array), or, where the build
# has no libpng, a refusal that says so.
run b a --exact --png diff.png
if grep -qF 'built without PNG support' <<<"$out"; then
    expect_rc 2
else
    expect_rc 1
    expect_out "png: diff.png: array 'u@1', 37 x 53; 1 element(s) differ" \
        'yellow 1 ulp to dark red 3 ulps'
    [[ $(head -c 8 "$dir/diff.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] \
        || fail "diff.png is not a PNG file"
fi
run b a --png diff.png --array e
expect_rc 2
expect_out "array 'e' has rank 1" 'draws a non-empty 2-D array'
run b a --png diff.png --array nosuch
expect_rc 2
expect_out '--array nosuch: no array of that name'
run b a --array u
expect_rc 2
expect_out '--array picks the array that --png draws'

# A folder against a file.
run a a/manifest.txt
expect_rc 2
expect_out 'is a folder but' 'is a file'

# Damaged copies of a: each is refused with exit 2 and names the file.
damage() { rm -rf "$dir/$1"; cp -r "$dir/a" "$dir/$1"; }
damage trunc
truncate -s -4 "$dir/trunc/u@1.npy"
run trunc a
expect_rc 2
expect_out 'trunc/u@1.npy' 'truncated'
damage extra
printf 'xx' >>"$dir/extra/e.npy"
run extra a
expect_rc 2
expect_out 'extra/e.npy' 'extra bytes'
damage edited
printf '\x01' | dd of="$dir/edited/k.npy" bs=1 seek=200 conv=notrunc 2>/dev/null
run edited a
expect_rc 2
expect_out 'edited/k.npy' 'hash differs'
damage missing
rm "$dir/missing/e.npy"
run missing a
expect_rc 2
expect_out 'missing/e.npy: cannot open'
damage swapped
cp "$dir/swapped/e.npy" "$dir/swapped/u.npy"
run swapped a
expect_rc 2
expect_out 'swapped/u.npy' "does not say {'descr': '<f4'"
damage header
sed -i '1s/.*/duo-check 2/' "$dir/header/manifest.txt"
run header a
expect_rc 2
expect_out 'header/manifest.txt: not a duo-check 1 manifest'
damage badline
sed -i 's/^array e e.npy f64 101 /array e e.npy f65 101 /' "$dir/badline/manifest.txt"
run badline a
expect_rc 2
expect_out "badline/manifest.txt:6: type 'f65'"
damage fewer
sed -i '$d' "$dir/fewer/manifest.txt"
run fewer a
expect_rc 2
expect_out "array 'z' is in a but not in fewer"

if [[ $failures -eq 0 ]]; then echo "PASS: check runs"; exit 0; fi
echo "FAIL: $failures check(s)"
exit 1
