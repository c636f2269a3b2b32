#!/usr/bin/env bash
# bench/lib.sh verdicts and bench/run.sh's collection, summary, MISSED report and exit status, on fake bench
# scripts (the real benches are too slow for a test; `make bench` runs them).
source "$(dirname "$0")/lib.sh"

R=$TMP/r.tsv
(
    export BENCH_RESULTS=$R
    source "$ROOT/bench/lib.sh" "$PASSMAP" >/dev/null
    bench_result t under_target 1.5 s - 'value<2'
    bench_result t over_target 3 s - 'value<2'
    bench_result t tenfold 10 ms 100 'ratio<=0.1'
    bench_result t range_both 1.02 ms 1 'ratio>=0.95&&ratio<=1.05'
    bench_result t range_low 0.5 ms 1 'ratio>=0.95 && ratio<=1.05'
    bench_result t no_target 7 x
    bench_result t zero_peer 7 ms 0 'ratio<=1'
    bench_result_ci t ci_noisy 1.2 ms 1 'ratio<=1.1' 0.95 1.4 'wide interval'
    bench_result_ci t ci_fail 1.3 ms 1 'ratio<=1.1' 1.2 1.4
    bench_result_ci t ci_pass 1.0 ms 1 'ratio<=1.1' 0.9 1.1
    bench_result_ci t ci_point_only 1.0 ms 1 'ratio<=1.05' 0.9 1.2
    bench_result t note_tabs 1 s - - "$(printf 'a\tb')"
    bench_skip t skipped 'no tool'
    if bench_result t bad 1 s - 'ratio~1' 2>/dev/null; then echo "bad target accepted" >&2; exit 1; fi
) >/dev/null || fail "lib.sh calls"

verdict() { awk -F'\t' -v m="$1" '$2 == m { print $8 }' "$R"; }
field() { awk -F'\t' -v m="$1" -v c="$2" '$2 == m { print $c }' "$R"; }
expect() {
    local desc=$1 want=$2 got=$3
    if [ "$got" = "$want" ]; then ok "$desc"; else fail "$desc: want '$want', got '$got'"; fi
}
expect "value below target passes" PASS "$(verdict under_target)"
expect "value above target fails" FAIL "$(verdict over_target)"
expect "ratio is value/peer" 0.1 "$(field tenfold 6)"
expect "ratio target at the bound passes" PASS "$(verdict tenfold)"
expect "two-term target inside passes" PASS "$(verdict range_both)"
expect "two-term target (spaces) below fails" FAIL "$(verdict range_low)"
expect "no target is info" info "$(verdict no_target)"
expect "zero peer gives no ratio" - "$(field zero_peer 6)"
expect "ratio target without a ratio fails" FAIL "$(verdict zero_peer)"
expect "miss inside a consistent interval is NOISY" NOISY "$(verdict ci_noisy)"
expect "miss with the interval outside is FAIL" FAIL "$(verdict ci_fail)"
expect "interval row meeting the target passes" PASS "$(verdict ci_pass)"
expect "point meets, interval reaches past the target: NOISY, not PASS" NOISY "$(verdict ci_point_only)"
expect "tab in a note is flattened" "a b" "$(field note_tabs 9)"
expect "skip row" SKIP "$(verdict skipped)"
expect "bad target records nothing" 0 "$(awk -F'\t' '$2 == "bad"' "$R" | wc -l)"
expect "every row has 9 columns" 0 "$(awk -F'\t' 'NF != 9' "$R" | wc -l)"

# run.sh over fake benches: one with a met and a missed target, one that crashes.
mkdir -p "$TMP/benches"
cat >"$TMP/benches/alpha.sh" <<EOF
source "$ROOT/bench/lib.sh" "\$@"
bench_result alpha fast 1.5 s - 'value<2'
bench_result alpha slow 30 ms 10 'ratio<=1'
EOF
cat >"$TMP/benches/beta.sh" <<'EOF'
echo "beta: broken" >&2
exit 3
EOF
cat >"$TMP/benches/gamma.sh" <<'EOF'
exit 0
EOF
out=$(BENCH_DIR=$TMP/benches BENCH_OUT=$TMP/out "$ROOT/bench/run.sh" "$PASSMAP" 2>&1)
rc=$?
expect "run.sh exits 1 when a bench script fails" 1 "$rc"
case "$out" in *"MISSED: alpha slow"*) ok "run.sh prints MISSED for the missed target" ;;
    *) fail "no MISSED line"; echo "$out" | sed 's/^/#   /' ;; esac
case "$out" in *"ERROR: bench beta: exit 3"*) ok "run.sh reports the crashed script" ;;
    *) fail "no ERROR line for beta"; echo "$out" | tail -5 | sed 's/^/#   /' ;; esac
case "$out" in *"ERROR: bench gamma: recorded no result"*) ok "run.sh reports a script with no result" ;;
    *) fail "no ERROR line for gamma" ;; esac
expect "results.tsv: header + 4 rows" 5 "$(wc -l <"$TMP/out/results.tsv")"
check "results.json holds the verdicts" python3 -c "
import json, sys
d = json.load(open('$TMP/out/results.json'))
got = [(r['bench'], r['metric'], r['verdict']) for r in d['results']]
want = [('alpha', 'fast', 'PASS'), ('alpha', 'slow', 'FAIL'), ('beta', 'script', 'ERROR'), ('gamma', 'script', 'ERROR')]
assert got == want, got
assert d['results'][1]['ratio'] == 3.0 and d['results'][1]['value'] == 30.0, d['results'][1]
assert d['machine']['nproc'] >= 1
"

# A missed target alone is a report, not a failure.
rm "$TMP/benches/beta.sh" "$TMP/benches/gamma.sh"
out=$(BENCH_DIR=$TMP/benches BENCH_OUT=$TMP/out2 "$ROOT/bench/run.sh" "$PASSMAP" 2>&1)
expect "run.sh exits 0 with a missed target" 0 "$?"
case "$out" in *"targets: 1 met, 1 MISSED"*) ok "summary counts" ;; *) fail "summary counts" ;; esac
check_fails "run.sh without a binary is a usage error" "$ROOT/bench/run.sh"

finish
