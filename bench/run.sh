#!/usr/bin/env bash
# Runs every bench script (bench/*.sh but this one and lib.sh), each as `SCRIPT PASSMAP_BINARY`, then prints one
# summary table and writes build/bench/results.tsv and results.json.
# It is a report, not a gate: a missed target is printed as MISSED and the exit status stays 0. A bench script
# that fails (non-zero exit, or no result at all) is an ERROR and makes the exit status 1.
# Usage: bench/run.sh PASSMAP_BINARY
# Environment: BENCH_OUT (output directory, default build/bench), BENCH_DIR (where the scripts are, default this
# script's directory), BENCH_TIMEOUT (seconds per script, default 300).
set -u
if [ $# -ne 1 ] || [ ! -x "$1" ]; then
    echo "usage: $0 PASSMAP_BINARY   (got: ${1:-nothing})" >&2
    exit 2
fi
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/.." && pwd)
BENCH_DIR=${BENCH_DIR:-$HERE}
OUT=${BENCH_OUT:-$ROOT/build/bench}
PASSMAP=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
PY=${PYTHON:-/usr/bin/python3}
[ -x "$PY" ] || PY=python3
mkdir -p "$OUT" || exit 1

export BENCH_RESULTS=$OUT/results.tsv
printf 'bench\tmetric\tvalue\tunit\tpeer\tratio\ttarget\tverdict\tnote\n' >"$BENCH_RESULTS"
machine=$(
    model=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo 2>/dev/null | head -1)
    printf '%s\t%s\t%s\t%s\t%s\n' "${model:-unknown}" "$(nproc 2>/dev/null || echo '?')" \
        "$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null)" "$(uname -srm)" "$(date -u '+%Y-%m-%dT%H:%M:%SZ')"
)
IFS=$'\t' read -r m_cpu m_nproc m_load m_kernel m_date <<<"$machine"
echo "passmap bench: $PASSMAP"
echo "machine: $m_cpu, $m_nproc cores (nproc), load average $m_load at start"
echo "         $m_kernel, $m_date"

# The helper that records an ERROR row must not depend on the script having sourced lib.sh.
error_row() {
    printf '%s\tscript\t-\t-\t-\t-\t-\tERROR\t%s\n' "$1" "$2" >>"$BENCH_RESULTS"
}

shopt -s nullglob
scripts=()
for s in "$BENCH_DIR"/*.sh; do
    case "$(basename "$s")" in run.sh | lib.sh) ;; *) scripts+=("$s") ;; esac
done
if [ ${#scripts[@]} -eq 0 ]; then
    echo "no bench scripts in $BENCH_DIR" >&2
    exit 1
fi

t_all=$(date +%s.%N)
for s in "${scripts[@]}"; do
    name=$(basename "$s" .sh)
    before=$(wc -l <"$BENCH_RESULTS")
    echo
    echo "== $name =="
    t0=$(date +%s.%N)
    timeout --kill-after=10 "${BENCH_TIMEOUT:-300}" bash "$s" "$PASSMAP"
    rc=$?
    secs=$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')
    echo "-- $name: exit $rc, ${secs}s"
    if [ $rc -ne 0 ]; then
        [ $rc -eq 124 ] && error_row "$name" "timed out after ${BENCH_TIMEOUT:-300}s" || error_row "$name" "exit $rc"
    elif [ "$(wc -l <"$BENCH_RESULTS")" -eq "$before" ]; then
        error_row "$name" "recorded no result"
    fi
done
secs=$(awk -v a="$t_all" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }')

"$PY" - "$BENCH_RESULTS" "$OUT/results.json" "$PASSMAP" "$secs" "$machine" <<'EOF'
import csv, json, sys

tsv, json_path, passmap, secs, machine = sys.argv[1:6]
cpu, nproc, load, kernel, date = machine.split("\t")
with open(tsv, newline="") as f:
    rows = list(csv.DictReader(f, delimiter="\t", quoting=csv.QUOTE_NONE))

def num(s):
    try:
        return float(s)
    except ValueError:
        return None

doc = {
    "date": date,
    "machine": {"cpu": cpu, "nproc": int(nproc) if nproc.isdigit() else None, "loadavg_start": load,
                "kernel": kernel},
    "passmap": passmap,
    "elapsed_s": float(secs),
    "results": [
        {"bench": r["bench"], "metric": r["metric"], "value": num(r["value"]),
         "unit": None if r["unit"] == "-" else r["unit"], "peer": num(r["peer"]), "ratio": num(r["ratio"]),
         "target": None if r["target"] == "-" else r["target"], "verdict": r["verdict"],
         "note": None if r["note"] == "-" else r["note"]}
        for r in rows
    ],
}
with open(json_path, "w") as f:
    json.dump(doc, f, indent=2)
    f.write("\n")

head = ("bench", "metric", "passmap", "peer", "ratio", "target", "verdict")
table = [head]
for r in rows:
    unit = "" if r["unit"] == "-" else " " + r["unit"]
    value = r["value"] + unit if r["value"] != "-" else "-"
    peer = r["peer"] + unit if r["peer"] != "-" else "-"
    table.append((r["bench"], r["metric"], value, peer, r["ratio"], r["target"], r["verdict"]))
widths = [max(len(row[i]) for row in table) for i in range(len(head))]
right = {2, 3, 4}
print(f"\n== summary ({len(rows)} results, {secs}s; full rows with notes in {tsv} and {json_path}) ==")
for k, row in enumerate(table):
    print("  ".join(c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(row, widths))).rstrip())
    if k == 0:
        print("  ".join("-" * w for w in widths))

def listing(verdict):
    return [r for r in rows if r["verdict"] == verdict]

missed, noisy, errors = listing("FAIL"), listing("NOISY"), listing("ERROR")
for r in missed:
    print(f"MISSED: {r['bench']} {r['metric']} = {r['value']} {r['unit']} (ratio {r['ratio']}), target {r['target']}")
for r in noisy:
    print(f"NOISY (point misses, 95% interval does not): {r['bench']} {r['metric']} ratio {r['ratio']}, "
          f"target {r['target']}; rerun for more runs")
for r in errors:
    print(f"ERROR: bench {r['bench']}: {r['note']}")
passed = len(listing("PASS"))
skipped = listing("SKIP")
for r in skipped:
    print(f"SKIPPED: {r['bench']} {r['metric']}: {r['note']}")
print(f"targets: {passed} met, {len(missed)} MISSED, {len(noisy)} noisy; {len(skipped)} skipped, "
      f"{len(errors)} bench error(s)")
sys.exit(3 if errors else 0)
EOF
rc=$?
[ $rc -eq 3 ] && exit 1
[ $rc -ne 0 ] && { echo "bench: summary failed" >&2; exit 1; }
exit 0
