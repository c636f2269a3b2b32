# Sourced by bench scripts (bench/*.sh). Each script is run as `bench/NAME.sh PASSMAP_BINARY` by bench/run.sh,
# or by hand the same way.
#
# Provides:
#   $PASSMAP         the binary under test ($1 of the script, made absolute)
#   $ROOT            repository root
#   $LLVM_BIN        newest /usr/lib/llvm-*/bin (PASSMAP_LLVM_BINDIR overrides)
#   $PY              python3 used to parse JSON and compute statistics
#   $BENCH_TMP       scratch directory, removed on exit (add more cleanup with bench_on_exit, not `trap ... EXIT`);
#                    BENCH_KEEP=1 in the environment keeps it for inspection
#   $BENCH_RESULTS   the results file (TSV, one line per result; see bench_result); run.sh sets it, else a temp one
#   bench_result NAME METRIC VALUE UNIT [PEER] [TARGET] [NOTE]   record (and print) one result
#   bench_result_ci NAME METRIC VALUE UNIT PEER TARGET LO HI [NOTE]  same, LO..HI a 95% interval of the ratio
#   bench_skip NAME METRIC REASON                                record a result that could not be measured
#   bench_require CMD...        fails (returns 1, message on stderr) when a command is missing
#   bench_require_hyperfine     same for hyperfine
#   bench_machine               prints the machine description (CPU, cores, load) — machines here are noisy
#   bench_on_exit CMD           runs CMD (eval'd) at exit, before the scratch directory goes
#
# Results TSV columns: bench, metric, value, unit, peer, ratio (value/peer), target, verdict, note.
# TARGET is a condition on `value` or `ratio`: terms `value|ratio OP NUMBER` (OP one of < <= > >= ==) joined by
# `&&`, e.g. "ratio<=1", "value<2", "ratio>=0.95&&ratio<=1.05". Verdict: PASS / FAIL when a target is given,
# info when not, SKIP from bench_skip; NOISY (bench_result_ci) when the interval of the ratio reaches both sides of
# the target (the point misses but an end meets it, or the point meets it but an end does not): more runs would be
# needed to call it; PASS then needs the whole interval to meet the target. Empty fields are written as "-".
set -u
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 PASSMAP_BINARY   (got: ${1:-nothing})" >&2
    exit 2
fi
PASSMAP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
LLVM_BIN=${PASSMAP_LLVM_BINDIR:-$(ls -d /usr/lib/llvm-*/bin 2>/dev/null | sort -V | tail -1)}
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
BENCH_TMP=$(mktemp -d "${TMPDIR:-/tmp}/pm-bench.XXXXXX")
_bench_exit_cmds=()
_bench_own_results=0
if [ -z "${BENCH_RESULTS:-}" ]; then
    BENCH_RESULTS=$BENCH_TMP/results.tsv
    _bench_own_results=1
fi
: >>"$BENCH_RESULTS"

bench_on_exit() { _bench_exit_cmds+=("$1"); }

_bench_cleanup() {
    local c
    for c in "${_bench_exit_cmds[@]+"${_bench_exit_cmds[@]}"}"; do eval "$c" || true; done
    if [ -n "${BENCH_KEEP:-}" ]; then
        echo "bench: kept $BENCH_TMP (BENCH_KEEP)" >&2
    else
        rm -rf "$BENCH_TMP"
    fi
}
trap _bench_cleanup EXIT

bench_machine() {
    local model cores load
    model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
    cores=$(nproc 2>/dev/null || echo '?')
    load=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')
    echo "machine: ${model:-unknown CPU}, $cores cores (nproc), load average $load at start"
    echo "         $(uname -srm), $(date -u '+%Y-%m-%d %H:%M UTC')"
}

bench_require() {
    local c missing=0
    for c in "$@"; do
        if ! command -v "$c" >/dev/null 2>&1; then
            echo "bench: $c not found" >&2
            missing=1
        fi
    done
    return $missing
}

bench_require_hyperfine() {
    bench_require hyperfine || { echo "bench: install it with: apt-get install -y hyperfine" >&2; return 1; }
}

# Verdict of TARGET for VALUE and RATIO ("-" when not a number): PASS, FAIL, or info when TARGET is empty.
_bench_verdict() {
    local value=$1 ratio=$2 target=$3
    if [ -z "$target" ] || [ "$target" = "-" ]; then
        echo info
        return 0
    fi
    awk -v value="$value" -v ratio="$ratio" -v target="$target" 'BEGIN {
        n = split(target, terms, "&&"); ok = 1
        for (i = 1; i <= n; i++) {
            t = terms[i]; gsub(/[[:space:]]/, "", t)
            if (!match(t, /^(value|ratio)(<=|>=|==|<|>)/)) { print "bad target: " target > "/dev/stderr"; exit 2 }
            head = substr(t, 1, RLENGTH); num = substr(t, RLENGTH + 1)
            var = (substr(head, 1, 5) == "value") ? value : ratio
            op = substr(head, 6)
            if (num !~ /^[-+]?[0-9]*\.?[0-9]+([eE][-+]?[0-9]+)?$/) { print "bad target: " target > "/dev/stderr"; exit 2 }
            if (var == "-" || var == "") { ok = 0; continue }
            x = var + 0; y = num + 0
            if (op == "<")  ok = ok && (x < y)
            if (op == "<=") ok = ok && (x <= y)
            if (op == ">")  ok = ok && (x > y)
            if (op == ">=") ok = ok && (x >= y)
            if (op == "==") ok = ok && (x == y)
        }
        print (ok ? "PASS" : "FAIL")
    }'
}

# _bench_record NAME METRIC VALUE UNIT PEER TARGET NOTE LO HI: LO/HI ("-": none) bound the ratio (95% interval).
_bench_record() {
    local name=$1 metric=$2 value=$3 unit=$4 peer=${5:--} target=${6:--} note=${7:--} lo=${8:--} hi=${9:--}
    local ratio=- verdict
    [ -n "$peer" ] || peer=-
    [ -n "$target" ] || target=-
    [ -n "$note" ] || note=-
    if [ "$peer" != "-" ]; then
        ratio=$(awk -v a="$value" -v b="$peer" 'BEGIN { if (b + 0 == 0) print "-"; else printf "%.4g", a / b }')
    fi
    verdict=$(_bench_verdict "$value" "$ratio" "$target") || return 2
    # A miss that the interval cannot tell from a hit (it meets the target at an end, or holds 1) is noise.
    if [ "$verdict" = FAIL ] && [ "$lo" != "-" ] && [ "$hi" != "-" ]; then
        local r
        for r in "$lo" "$hi" $(awk -v lo="$lo" -v hi="$hi" 'BEGIN { if (lo <= 1 && 1 <= hi) print 1 }'); do
            if [ "$(_bench_verdict "$value" "$r" "$target")" = PASS ]; then
                verdict=NOISY
                break
            fi
        done
    fi
    # A point that meets the target while its interval reaches past it is not a pass yet: the interval decides,
    # as it does for compare's verdicts (docs/statistics.md), so PASS needs both ends to meet the target.
    if [ "$verdict" = PASS ] && [ "$lo" != "-" ] && [ "$hi" != "-" ]; then
        local e
        for e in "$lo" "$hi"; do
            if [ "$(_bench_verdict "$value" "$e" "$target")" = FAIL ]; then
                verdict=NOISY
                break
            fi
        done
    fi
    # Tabs or newlines inside a field would break the TSV.
    note=$(printf '%s' "$note" | tr '\t\n' '  ')
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$metric" "$value" "$unit" "$peer" "$ratio" "$target" \
        "$verdict" "$note" >>"$BENCH_RESULTS"
    printf '  %-10s %-28s %12s %-4s peer %-10s ratio %-8s %-5s %s\n' "$name" "$metric" "$value" "$unit" "$peer" \
        "$ratio" "$verdict" "$([ "$note" = "-" ] || echo "($note)")"
}

# bench_result NAME METRIC VALUE UNIT [PEER] [TARGET] [NOTE]
bench_result() {
    if [ $# -lt 4 ]; then
        echo "bench_result: need NAME METRIC VALUE UNIT [PEER] [TARGET] [NOTE]" >&2
        return 2
    fi
    _bench_record "$1" "$2" "$3" "$4" "${5:--}" "${6:--}" "${7:--}" - -
}

# bench_result_ci NAME METRIC VALUE UNIT PEER TARGET LO HI [NOTE]: as bench_result, with LO..HI a 95% interval of
# the ratio; a missed target becomes NOISY (not MISSED) when the interval is consistent with meeting it.
bench_result_ci() {
    if [ $# -lt 8 ]; then
        echo "bench_result_ci: need NAME METRIC VALUE UNIT PEER TARGET LO HI [NOTE]" >&2
        return 2
    fi
    _bench_record "$1" "$2" "$3" "$4" "$5" "$6" "${9:--}" "$7" "$8"
}

# bench_skip NAME METRIC REASON
bench_skip() {
    printf '%s\t%s\t-\t-\t-\t-\t-\tSKIP\t%s\n' "$1" "$2" "$(printf '%s' "$3" | tr '\t\n' '  ')" >>"$BENCH_RESULTS"
    printf '  %-10s %-28s SKIP (%s)\n' "$1" "$2" "$3"
}

# Run by hand (not under run.sh): say where we are.
if [ "$_bench_own_results" = 1 ]; then
    bench_machine
fi
