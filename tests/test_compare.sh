#!/usr/bin/env bash
# test_compare.sh - duo-compare's exit codes and messages on dump files of
# known contents (written by test_make_dump, see tests/make_dump.c).
#
#   test_compare.sh <duo-compare> <test_make_dump> <case>|all
#
# Cases: pass tolerance exact nan int options errors_file
# errors_mismatch writer.  Exits 0 when every check of the case passes,
# 1 otherwise (each failed check is printed with the output it got).
set -u

if [[ $# -ne 3 ]]; then
    echo "usage: $0 <duo-compare> <test_make_dump> <case>|all" >&2
    exit 2
fi
compare=$1
make_dump=$2
which_case=$3

dir=$(mktemp -d "${TMPDIR:-/tmp}/duo-compare-test.XXXXXX") || exit 1
trap 'rm -rf "$dir"' EXIT
if ! "$make_dump" "$dir"; then
    echo "FAIL: $make_dump $dir could not write the test files" >&2
    exit 1
fi

failures=0
out=""
rc=0

# run <args...>: run duo-compare; arguments that are not options or
# option values are file names, made into $dir/<name>.dump.  Sets $out
# (stdout and stderr) and $rc.
run() {
    local args=() a prev=""
    for a in "$@"; do
        if [[ $a == -* || $prev == --tol || $prev == --ulps ]]; then
            args+=("$a")
        else
            args+=("$dir/$a.dump")
        fi
        prev=$a
    done
    cmd="duo-compare ${*}"
    out=$("$compare" "${args[@]}" 2>&1)
    rc=$?
}

fail() {
    echo "FAIL [$cmd]: $1"
    echo "  output (exit $rc):"
    printf '%s\n' "$out" | sed 's/^/    | /'
    failures=$((failures + 1))
}

expect_rc() { [[ $rc -eq $1 ]] || fail "expected exit $1, got $rc"; }

# expect_out <fixed string>...: each must appear in the output.
expect_out() {
    local s
    for s in "$@"; do
        grep -qF -- "$s" <<<"$out" || fail "output lacks: $s"
    done
}

expect_no_out() {
    grep -qF -- "$1" <<<"$out" && fail "output should not contain: $1"
    return 0
}

# ---------------------------------------------------------------------
case_pass() {
    run base same
    expect_rc 0
    expect_out 'duo-compare: app=test-app args="8 --seed=1" A=' \
        'x f32[8]: PASS max_abs=0 max_rel=0 max_ulp=0 nmse=0 mismatches=0/8' \
        'm f64[3x4]: PASS' 'n i32[2x3]: PASS' 'l i64[4]: PASS' \
        'u u64[2x2x2]: PASS' 'verdict: PASS'
    run base base
    expect_rc 0
    expect_out 'verdict: PASS'
    run --exact base same
    expect_rc 0
    expect_out 'verdict: PASS' '(exact)'
}

case_tolerance() {
    run within base
    expect_rc 0
    expect_out 'x f32[8]: PASS' 'm f64[3x4]: PASS max_abs=' 'max_ulp=2' \
        'max_rel=1 ' '(tol 1e-05, 4 ulps)' '(tol 1e-12, 16 ulps)' \
        'verdict: PASS'
    # B is the reference: x[7] is 0 in "within", so max_rel is inf.
    run base within
    expect_rc 0
    expect_out 'x f32[8]: PASS' 'max_rel=inf' 'verdict: PASS'
    run beyond base
    expect_rc 1
    expect_out 'm f64[3x4]: FAIL' 'mismatches=2/12 first=[2,1]' \
        'x f32[8]: PASS' 'verdict: FAIL'
    # A looser --tol, or a huge --ulps, passes it.
    run beyond base --tol 1e-8
    expect_rc 0
    expect_out 'm f64[3x4]: PASS' '(tol 1e-08, 16 ulps)'
    run beyond base --ulps=100000000
    expect_rc 0
    # An absolute tolerance above the largest difference (3.83e-9) passes,
    # one below it does not.
    run beyond base --atol=4e-9
    expect_rc 0
    expect_out 'm f64[3x4]: PASS' 'atol 4e-09'
    run beyond base --atol=3e-9
    expect_rc 1
    expect_out 'm f64[3x4]: FAIL'
    run beyond base --atol=-1
    expect_rc 2
    # A tighter one fails "within".
    run within base --tol=1e-7
    expect_rc 1
    expect_out 'x f32[8]: FAIL' 'first=[3]'
}

case_exact() {
    run ulp1 base
    expect_rc 0
    expect_out 'x f32[8]: PASS' 'max_ulp=1' 'verdict: PASS'
    run ulp1 base --exact
    expect_rc 1
    expect_out 'x f32[8]: FAIL' 'mismatches=1/8 first=[5] A=-6.99999952 B=-7' \
        '(exact)' 'verdict: FAIL'
    run pzero nzero
    expect_rc 0
    run pzero nzero --exact
    expect_rc 1
    expect_out 'first=[2] A=0 B=-0'
}

case_nan() {
    run nan1 nan2
    expect_rc 0
    expect_out 'x f32[8]: PASS' 'verdict: PASS'
    run nan1 nan2 --exact
    expect_rc 1
    expect_out 'first=[2] A=nan (0x7fc00000) B=nan (0x7fc00001)'
    run nan1 nan3
    expect_rc 1
    expect_out 'x f32[8]: FAIL' 'mismatches=1/8 first=[4] A=1.00000002e+30 B=nan' \
        'nan_mismatches=1'
    run base nan1
    expect_rc 1
    expect_out 'first=[2] A=3 B=nan'
}

case_int() {
    run int_diff base
    expect_rc 1
    expect_out 'n i32[2x3]: FAIL max_abs=1 max_rel=0.5 max_ulp=1' \
        'mismatches=1/6 first=[1,2] A=3 B=2' '(integers: exact)' \
        'm f64[3x4]: PASS' 'verdict: FAIL'
    # Integers stay exact whatever --tol says.
    run int_diff base --tol 1 --ulps 5
    expect_rc 1
    expect_out 'n i32[2x3]: FAIL'
    run int_big base
    expect_rc 1
    expect_out 'l i64[4]: FAIL' 'max_ulp=18446744073709551615' \
        'first=[0] A=9223372036854775807 B=-9223372036854775808'
}

case_options() {
    run --quiet base same
    expect_rc 0
    [[ $out == "verdict: PASS" ]] || fail "--quiet on a pass: expected only the verdict"
    run --quiet beyond base
    expect_rc 1
    expect_out 'm f64[3x4]: FAIL' 'verdict: FAIL'
    expect_no_out 'x f32[8]: PASS'
    run --help
    expect_rc 0
    expect_out 'usage: duo-compare A B' 'How the defaults were chosen' \
        'Exit status: 0 PASS; 1 FAIL; 2'
    run
    expect_rc 2
    expect_out 'give two runs, A and B'
    run base
    expect_rc 2
    expect_out 'give a second run, B'
    run base same other_app
    expect_rc 2
    expect_out 'unexpected argument'
    run base same --exact --tol 1e-3
    expect_rc 2
    expect_out 'cannot be combined'
    run base same --tol -1
    expect_rc 2
    expect_out "--tol '-1'"
    run base same --ulps 1.5
    expect_rc 2
    expect_out "--ulps '1.5'"
    run base same --tol
    expect_rc 2
    expect_out '--tol expects a value'
    run base same --frobnicate
    expect_rc 2
    expect_out "unknown option '--frobnicate'"
}

case_errors_file() {
    run trunc base
    expect_rc 2
    expect_out 'trunc.dump: truncated file' 'byte offset'
    run base trunc_header
    expect_rc 2
    expect_out 'trunc_header.dump: truncated file' 'the format version' \
        '(at byte offset 8)'
    run magic base
    expect_rc 2
    expect_out 'magic.dump: wrong magic: not a duo dump file' \
        '(at byte offset 0)'
    run version base
    expect_rc 2
    expect_out 'version.dump: unsupported format version 2' \
        '(at byte offset 8)'
    run hash base
    expect_rc 2
    expect_out "hash.dump: array 'x': hash mismatch" 'corrupt' 'byte offset'
    run unclosed base
    expect_rc 2
    expect_out 'unclosed.dump: incomplete file' '(at byte offset 12)'
    run absurd_count base
    expect_rc 2
    expect_out 'absurd array count 1000000' '(at byte offset 12)'
    run unknown_type base
    expect_rc 2
    expect_out "array 'x': unknown element type 9"
    run sizes base
    expect_rc 2
    expect_out "array 'x': sizes inconsistent: f32 [8] needs 32 data bytes but the byte count says 36"
    run trailing base
    expect_rc 2
    expect_out '3 unexpected bytes after the last of the 5 arrays'
    run base no_such_file
    expect_rc 2
    expect_out 'no_such_file.dump: cannot open: No such file or directory'
}

case_errors_mismatch() {
    run shape base
    expect_rc 2
    expect_out "array 'm' has shape [4x3] in" "but [3x4] in"
    expect_no_out 'verdict'
    run base type
    expect_rc 2
    expect_out "array 'm' has element type f64 in" "but f32 in"
    run other_app base
    expect_rc 2
    expect_out 'the files come from different apps' 'app=other-app' \
        'app=test-app'
    run base other_args
    expect_rc 2
    expect_out 'the runs had different args' 'args="8 --seed=1"' \
        'args="8 --seed=2"'
    run missing_array base
    expect_rc 2
    expect_out "array 'u' is in $dir/base.dump but not in $dir/missing_array.dump"
}

case_writer() {
    cmd="test_make_dump --writer"
    out=$("$make_dump" --writer "$dir" 2>&1)
    rc=$?
    expect_rc 0
    expect_out 'writer checks: PASS' 'no-such-dir/x.dump: cannot create the file: No such file or directory' \
        "array name 'bad name' is invalid" \
        "an array of that name was already written"
}

cases="pass tolerance exact nan int options errors_file errors_mismatch writer"
if [[ $which_case == all ]]; then
    selected=$cases
elif [[ " $cases " == *" $which_case "* ]]; then
    selected=$which_case
else
    echo "$0: unknown case '$which_case' (cases: $cases, or all)" >&2
    exit 2
fi
for c in $selected; do
    before=$failures
    "case_$c"
    if [[ $failures -eq $before ]]; then echo "PASS: $c"
    else echo "FAIL: $c"; fi
done
[[ $failures -eq 0 ]]
