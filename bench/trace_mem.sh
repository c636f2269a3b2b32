#!/usr/bin/env bash
# Peak memory of reading a Chrome trace (clang -ftime-trace's shape) and of writing one back: a generated trace of
# 1 M events (BENCH_TRACE_BIG=1 adds one of 10 M, about 1 GB and several minutes: raise BENCH_TIMEOUT), then
#   import: `passmap import --db DB TRACE` (the parser, sniffed from the file, streaming; then the store), and
#   trace:  `passmap trace DB -o OUT` of that run (every stored pass loaded, the events written one at a time).
# Each row is the peak RSS (GNU time's maximum resident set size) with the trace file's size as the peer, so the
# ratio is peak RSS / file size. Before the streaming reader, the whole file was one Jansson tree: about 20x the
# file for import and 40x for trace (issue 26). The target is this bench's: the reader's bound is per span
# (docs/reference.md, "Chrome traces"), so the ratio stays below 3 whatever the file's size.
source "$(dirname "$0")/lib.sh"
[ -x /usr/bin/time ] || { bench_skip trace_mem peak_rss "GNU time (/usr/bin/time) missing"; exit 0; }
bench_machine

# N events like clang's: per function an OptFunction span holding 8 pass spans and a CodeGen span, each with the
# function as args.detail; a root ExecuteCompiler span, a few "Total" events and the metadata clang writes.
gen() { # N FILE
    "$PY" - "$1" "$2" <<'EOF'
import sys
n, path = int(sys.argv[1]), sys.argv[2]
passes = ["SROAPass", "EarlyCSEPass", "InstCombinePass", "SimplifyCFGPass", "GVNPass", "LICMPass",
          "LoopUnrollPass", "SLPVectorizerPass"]
per = len(passes) + 2
fns = max(1, (n - 4) // per)
head = '{"pid":4242,"tid":4242,"ph":"X","ts":%d,"dur":%d,"name":"%s","args":{"detail":"fn_%d"}}'
with open(path, "w") as f:
    f.write('{"traceEvents":[{"pid":4242,"tid":4242,"ph":"M","ts":0,"cat":"","name":"process_name","args":{"name":"clang"}}')
    t, out = 10, []
    for i in range(fns):
        t0 = t
        for p in passes:
            out.append(head % (t, 7, p, i))
            t += 8
        out.append(head % (t, 5, "CodeGen Function", i))
        t += 6
        out.append(head % (t0, t - t0, "OptFunction", i))
        t += 1
        if len(out) >= 100000:
            f.write("," + ",".join(out))
            out = []
    if out:
        f.write("," + ",".join(out))
    f.write(',{"pid":4242,"tid":4242,"ph":"X","ts":0,"dur":%d,"name":"ExecuteCompiler"}' % (t + 10))
    for k, p in enumerate(passes[:2]):
        f.write(',{"pid":4242,"tid":%d,"ph":"X","ts":0,"dur":%d,"name":"Total %s","args":{"count":%d,"avg ms":0}}'
                % (4243 + k, 7 * fns, p, fns))
    f.write('],"beginningOfTime":1700000000000000}\n')
print(fns * per + 3)
EOF
}

# peak RSS (KiB) of a command, its output kept in $BENCH_TMP/last.out; fails when the command fails
peak_kb() {
    /usr/bin/time -f '%M %e' -o "$BENCH_TMP/time.txt" "$@" >"$BENCH_TMP/last.out" 2>&1 || {
        echo "bench: failed: $* ($(tail -3 "$BENCH_TMP/last.out"))" >&2
        return 1
    }
    read -r kb secs <"$BENCH_TMP/time.txt"
    echo "$kb $secs"
}

sizes=(1000000)
[ "${BENCH_TRACE_BIG:-0}" = 1 ] && sizes+=(10000000)
for n in "${sizes[@]}"; do
    label=$((n / 1000000))M
    tr=$BENCH_TMP/trace-$label.json
    events=$(gen "$n" "$tr") || exit 1
    mb=$(awk -v b="$(stat -c %s "$tr")" 'BEGIN { printf "%.1f", b / 1048576 }')
    echo "trace $label: $events events, $mb MiB"
    db=$BENCH_TMP/t-$label.db
    read -r kb secs < <(peak_kb "$PASSMAP" import --db "$db" "$tr") || exit 1
    [ -n "${kb:-}" ] || exit 1
    bench_result trace_mem "import_${label}_peak_rss" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" MiB "$mb" \
        'ratio<3' "passmap import of a $events-event trace, ${secs} s; peer = the file's size"
    read -r kb secs < <(peak_kb "$PASSMAP" trace "$db" -o "$BENCH_TMP/out-$label.json") || exit 1
    [ -n "${kb:-}" ] || exit 1
    bench_result trace_mem "trace_${label}_peak_rss" "$(awk -v k="$kb" 'BEGIN { printf "%.1f", k / 1024 }')" MiB "$mb" \
        'ratio<3' "passmap trace of that run, ${secs} s; peer = the input trace's size"
    rm -f "$tr" "$db" "$BENCH_TMP/out-$label.json"
done
