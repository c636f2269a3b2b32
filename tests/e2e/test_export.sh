#!/usr/bin/env bash
# e2e: passmap export --format lnt|bmf|csv (lib/output/export.h). Each format is validated against a schema
# written from its published description (tests/schemas/: LNT's report format version 2, Bencher's BMF) and read
# back: every exported value is the store's (through the baseline file too), with its unit and the compiler.
source "$(dirname "$0")/lib.sh"
source "$ROOT/tests/support/timing-stores.sh"

check "store: 3 configs x 4 runs" store "$TMP/s.db" 7 4 0.02 1 1.1 0.9
check "baseline of it" "$PASSMAP" baseline "$TMP/s.db" -o "$TMP/s.tsv"
for f in lnt bmf csv; do
  check "export $f from the store" "$PASSMAP" export "$TMP/s.db" --format $f -o "$TMP/s.$f"
  check "export $f from the baseline file: the same bytes" bash -c "'$PASSMAP' export '$TMP/s.tsv' --format $f | cmp - '$TMP/s.$f'"
done
validate() { # SCHEMA FILE
  python3 -c 'import json,sys,jsonschema; jsonschema.validate(json.load(open(sys.argv[2])), json.load(open(sys.argv[1])))' "$1" "$2"
}
check "lnt: valid against tests/schemas/lnt-report-v2.schema.json" validate "$ROOT/tests/schemas/lnt-report-v2.schema.json" "$TMP/s.lnt"
check "bmf: valid against tests/schemas/bmf.schema.json" validate "$ROOT/tests/schemas/bmf.schema.json" "$TMP/s.bmf"
# the schemas can fail: a metric NTS does not have, a measure without its value
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); d["tests"][0]["instructions"]=[1]; json.dump(d, open(sys.argv[2], "w"))' "$TMP/s.lnt" "$TMP/bad.lnt"
check_fails "lnt schema refuses a metric NTS lacks" validate "$ROOT/tests/schemas/lnt-report-v2.schema.json" "$TMP/bad.lnt"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); next(iter(d.values()))["latency"].pop("value"); json.dump(d, open(sys.argv[2], "w"))' "$TMP/s.bmf" "$TMP/bad.bmf"
check_fails "bmf schema refuses a measure without value" validate "$ROOT/tests/schemas/bmf.schema.json" "$TMP/bad.bmf"

# Round trip: the samples in the store (sqlite3, not passmap) are the exported values.
sqlite3 -separator ' ' "$TMP/s.db" "SELECT c.key, r.repeat, r.wall_s FROM run r JOIN config c ON c.id = r.config_id ORDER BY c.key, r.repeat" >"$TMP/walls.txt"
sqlite3 -separator ' ' "$TMP/s.db" "SELECT c.key, r.repeat, n.name, p.wall_s FROM pass_time p JOIN pass_name n ON n.id = p.name_id JOIN step s ON s.id = p.step_id JOIN run r ON r.id = s.run_id JOIN config c ON c.id = r.config_id WHERE p.counted = 1 ORDER BY c.key, n.name, r.repeat" >"$TMP/passes.txt"
check "lnt: every config's compile_time samples, in seconds, and each pass's" python3 - "$TMP/s.lnt" "$TMP/walls.txt" "$TMP/passes.txt" <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
tests = {t["name"]: t["compile_time"] for t in d["tests"]}
walls, passes = collections.defaultdict(list), collections.defaultdict(list)
for line in open(sys.argv[2]):
    k, r, w = line.split(); walls[k].append(float(w))
for line in open(sys.argv[3]):
    k, r, n, w = line.split(); passes[f"{k}/pass/llc/{n}"].append(float(w))
assert sorted(walls) == ["cfgA", "cfgB", "cfgC"]
for k, v in walls.items():
    assert tests[k] == v, (k, tests[k], v)
    assert tests[f"{k}/step/llc"] == v
for k, v in passes.items():
    assert [round(x, 9) for x in tests[k]] == [round(x, 9) for x in v], (k, tests[k], v)
assert d["machine"]["name"] and d["run"]["passmap_sweep"] == "demo" and d["run"]["passmap_decides"] == "wall"
PY
check "bmf: latency in ns is each series' geometric mean, inside its interval" python3 - "$TMP/s.bmf" "$TMP/walls.txt" <<'PY'
import json, sys, math, collections
d = json.load(open(sys.argv[1]))
walls = collections.defaultdict(list)
for line in open(sys.argv[2]):
    k, r, w = line.split(); walls[k].append(float(w))
for k, v in walls.items():
    m = d[k]["latency"]
    g = math.exp(sum(math.log(x) for x in v) / len(v)) * 1e9
    assert abs(m["value"] - g) < 1e-6 * g, (k, m, g)
    assert m["lower_value"] < m["value"] < m["upper_value"]
assert any(k.endswith("/pass/llc/SelectionDAGISel") for k in d)
PY
check "csv: every sample back, with its unit" python3 - "$TMP/s.csv" "$TMP/walls.txt" <<'PY'
import csv, sys, collections
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
walls = collections.defaultdict(list)
for line in open(sys.argv[2]):
    k, r, w = line.split(); walls[k].append(float(w))
got = collections.defaultdict(list)
for r in rows:
    assert r["sweep"] == "demo" and r["meter"] == "wall"
    if r["scope"] == "run" and r["metric"] == "wall":
        assert r["unit"] == "s"
        got[r["config"]].append(float(r["value"]))
assert dict(got) == dict(walls), (got, walls)
assert {r["scope"] for r in rows} == {"run", "step", "pass"}
PY
"$PASSMAP" export "$TMP/s.db" --format lnt --machine ci-runner-1 --order 1234 >"$TMP/o.lnt"
check "lnt: --machine and --order" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["machine"]["name"] == "ci-runner-1" and d["run"]["llvm_project_revision"] == "1234"' "$TMP/o.lnt"
"$PASSMAP" export "$TMP/s.db" --format xml >/dev/null 2>"$TMP/err.txt"
check "an unknown format: usage (2), the formats listed" bash -c "test $? -eq 2 && grep -q 'one of lnt, bmf, csv' '$TMP/err.txt'"
check_fails "export over its own database is refused" "$PASSMAP" export "$TMP/s.db" --format csv -o "$TMP/s.db"

# A real compile: the compiler's identity (llc's --version line) is in the LNT run and in every CSV row.
LLC=$LLVM_BIN/llc
if [ -x "$LLC" ]; then
  mkdir -p "$TMP/real" && cp "$ROOT/tests/fixtures/llvm/input.ll" "$TMP/real/"
  printf '[sweep]\nname = llc-export\nbackend = command\nrepeats = 1\n[matrix m]\ninput = input.ll\n[step llc]\nargv = %s -O2 -time-passes {input} -o {out}/out.s\n' "$LLC" >"$TMP/real/llc.ini"
  check "a real llc sweep" "$PASSMAP" sweep --quiet --db "$TMP/real.db" "$TMP/real/llc.ini"
  "$PASSMAP" export "$TMP/real.db" --format lnt >"$TMP/real.lnt"
  check "lnt: the compiler named in the run" python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["run"]; assert "LLVM version" in r["passmap_compiler"], r' "$TMP/real.lnt"
  "$PASSMAP" export "$TMP/real.db" --format csv >"$TMP/real.csv"
  check "csv: the compiler on the rows (or no rows: contended)" python3 -c 'import csv,sys; rows=list(csv.DictReader(open(sys.argv[1]))); assert all("LLVM version" in r["compiler"] for r in rows), rows[:1]' "$TMP/real.csv"
else
  ok "# SKIP no llc in $LLVM_BIN"
fi
finish
