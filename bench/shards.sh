#!/usr/bin/env bash
# Shard balance on a cut of studies/embedded-llm.ini: how evenly a plan spreads the measured compile time over
# the shards. The cut is swept once on one machine (1 cold repeat, no warm runs; its store also records each
# config's stage-size probe, ir.stage.*), then planned over N shards two ways: by the IR-size estimate and by the
# stage-size probe (read from that store, never its walls: `--cost-model probe --costs`). Balance = the largest
# shard's measured wall / an even split (1 = perfect); target for the probe: <= 1.3. Also Spearman's rho of each
# model's expected cost against the measured walls.
# Default cut: five models at windows 128 and 512, int8, 1 layer (10 configs, 3 shards; phi3:3.8b, the largest
# compile, left out so make bench stays within 5 minutes). BENCH_SHARDS=full: the whole LLM study without warm runs (63 configs, 8 shards; ~8 minutes, raise
# BENCH_TIMEOUT).
source "$(dirname "$0")/lib.sh"

[ -x "$LLVM_BIN/mlir-opt" ] || { bench_skip shards balance "no mlir-opt"; exit 0; }

if [ "${BENCH_SHARDS:-}" = full ]; then
    sed -e 's/^repeats = .*/repeats = 1/' -e 's/^warm = .*/warm = false/' "$ROOT/studies/embedded-llm.ini" \
        >"$BENCH_TMP/cut.ini"
    n=8
    cut=full
else
    cat >"$BENCH_TMP/cut.ini" <<'INI'
; cut of studies/embedded-llm.ini: five models of four families, the study's two main windows
[sweep]
name = shard-balance
repeats = 1
timeout = 600s
mem_limit = 12G
[embedded]
tile = 256
unroll = 16
[llm cut]
models = gemma2:2b, tinyllama:1.1b, llama3.2:1b, qwen2:0.5b, qwen2:1.5b
windows = 128, 512
precisions = int8
layers = 1
INI
    n=3
    cut=5-models
fi

bench_machine
load=$(cut -d' ' -f1 /proc/loadavg)
"$PASSMAP" sweep --quiet --no-warm --db "$BENCH_TMP/m.db" "$BENCH_TMP/cut.ini" >&2 || exit 1
for model in ir probe; do
    "$PASSMAP" sweep --shards "$n" --write-plan "$BENCH_TMP/$model.plan" --cost-model "$model" \
        --costs "$BENCH_TMP/m.db" "$BENCH_TMP/cut.ini" >&2 || exit 1
done

read -r bal_ir bal_probe rho_ir rho_probe configs < <("$PY" - "$BENCH_TMP/m.db" "$BENCH_TMP/ir.plan" \
    "$BENCH_TMP/probe.plan" "$n" <<'PY'
import sqlite3, sys
db, plans, n = sys.argv[1], sys.argv[2:4], int(sys.argv[4])
wall = dict(sqlite3.connect(db).execute(
    "select c.key, avg(r.wall_s) from run r join config c on c.id = r.config_id "
    "where r.mode = 'cold' and r.status = 'ok' group by c.key"))
def ranks(v):
    order = sorted(range(len(v)), key=lambda i: v[i]); r = [0.0] * len(v); i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and v[order[j + 1]] == v[order[i]]: j += 1
        for k in range(i, j + 1): r[order[k]] = (i + j) / 2.0
        i = j + 1
    return r
def spearman(a, b):
    ra, rb = ranks(a), ranks(b); ma, mb = sum(ra) / len(ra), sum(rb) / len(rb)
    cov = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    va = sum((x - ma) ** 2 for x in ra) ** 0.5; vb = sum((y - mb) ** 2 for y in rb) ** 0.5
    return cov / (va * vb) if va and vb else float("nan")
out = []
rhos = []
for p in plans:
    load = [0.0] * n; cost, meas = [], []
    for line in open(p):
        f = line.split(None, 3)
        if f and f[0] == "config":
            key = f[3].strip()
            if key not in wall: sys.exit("config %s has no ok cold run" % key)
            load[int(f[1]) - 1] += wall[key]; cost.append(float(f[2])); meas.append(wall[key])
    out.append(max(load) / (sum(load) / n))
    rhos.append(spearman(cost, meas))
print("%.3f %.3f %.3f %.3f %d" % (out[0], out[1], rhos[0], rhos[1], len(wall)))
PY
)
[ -n "${configs:-}" ] || exit 1
note="cut $cut: $configs configs over $n shards, 1 cold repeat each; load $load at start"
bench_result shards balance_ir "$bal_ir" "max/even" "" "" "IR-size estimate; $note"
bench_result shards balance_probe "$bal_probe" "max/even" "$bal_ir" "value<=1.3" "stage-size probe (peer: IR size); $note"
bench_result shards rho_ir "$rho_ir" "spearman" "" "" "IR-size estimate vs measured wall"
bench_result shards rho_probe "$rho_probe" "spearman" "" "" "stage-size probe vs measured wall"
