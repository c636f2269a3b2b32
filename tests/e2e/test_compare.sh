#!/usr/bin/env bash
# e2e: passmap compare on real compiles: passmap sweep runs the embedded compiler (qwen2 0.5b, one layer,
# window 64, int8 and fp16, 2 repeats) with the stock back end (A) and with allow-pattern-rollback=0 (B).
source "$(dirname "$0")/lib.sh"

json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

spec() { # NAME VARIANTS PRECISIONS WINDOW REPEATS
  cat <<INI
[sweep]
name = $1
repeats = $5
timeout = 120s
mem_limit = 8G
[embedded]
tile = 256
[llm q]
models = qwen2:0.5b
windows = $4
precisions = $3
layers = 1
variants = $2
INI
}
spec demo stock "int8, fp16" 64 2 >"$TMP/a.ini"
spec demo no-rollback "int8, fp16" 64 2 >"$TMP/b.ini"
spec demo "stock, no-rollback" int8 64 3 >"$TMP/c.ini"   # 3 repeats: a test, so a mark
spec other stock int8 32 1 >"$TMP/d.ini"
for x in a b c d; do
  check "sweep $x.db" "$PASSMAP" sweep --quiet --db "$TMP/$x.db" "$TMP/$x.ini"
done

"$PASSMAP" compare "$TMP/a.db" "$TMP/b.db" >"$TMP/out.txt" 2>"$TMP/err.txt"
check "compare A B exits 0" test $? -eq 0
check "text: both configs" grep -q "llm/qwen2/0.5b/w64/int8/L1 (A: llm/qwen2/0.5b/w64/int8/L1/stock, B: llm/qwen2/0.5b/w64/int8/L1/no-rollback" "$TMP/out.txt"
check "text: w32 config" grep -q "^llm/qwen2/0.5b/w64/fp16/L1 " "$TMP/out.txt"
check "text: compile wall row with n=2 each" grep -Eq "^compile wall +2 +2 " "$TMP/out.txt"
check "text: step rows for the three tools" \
  bash -c "grep -c '^step \(llc\|mlir-opt\|mlir-translate\) ' '$TMP/out.txt' | grep -qx 6"
# every pass row (the default shows the top 10 by |delta|, which the machine's noise reorders)
"$PASSMAP" compare --all-passes "$TMP/a.db" "$TMP/b.db" >"$TMP/all.txt" 2>/dev/null
check "text: convert-to-llvm only in B is added" grep -Eq "pass mlir-opt: ConvertToLLVMPass .* added$" "$TMP/all.txt"
check "text: finalize-memref-to-llvm only in A is removed" \
  grep -Eq "pass mlir-opt: FinalizeMemRefToLLVMConversionPass .* removed$" "$TMP/all.txt"
# n = 2: no config is decided, so no summary is drawn, and the line says why
# the metric named is the one that decided (wall here on a busy machine, cpu time on a quiet one): either
check "text: summary withheld, the reason on the line" grep -Eq "2 configs matched; compile (wall|cpu time \(user\+sys\)) B/A: no summary: none of 2 configs decided \(2 without a test \(n < 3, a zero time or below resolution\) left out\)" "$TMP/out.txt"
check "text: regime table counts decided of all" grep -Eq "^(mlir-opt|llc|mlir-translate) +0 of [12] +- " "$TMP/out.txt"
check "text: each family's simultaneous level stated (n=2: none tested)" grep -q "^intervals: compile walls none (no row tested); steps none (no row tested)" "$TMP/out.txt"

"$PASSMAP" compare --json "$TMP/a.db" "$TMP/b.db" >"$TMP/out.json"
check "json exits 0" test $? -eq 0
check "json: sides" json_check "$TMP/out.json" \
  'd["a"]["variant"] == "stock" and d["b"]["variant"] == "no-rollback" and d["a"]["sweep"] == "demo"'
# two configs: no interval over configs (n < 3), and no claim from n = 2 repeats
check "json: summary" json_check "$TMP/out.json" \
  '(s := d["summary"])["n_configs"] == 2 and s["geomean_ratio"] is None and s["n_ratios"] == 0 and s["untested"] == 2 and s["ci_lo"] is None and s["threshold"] == 0.02 and "no summary" in s["text"]'
check "json: wall ratio is geometric mean B / A" json_check "$TMP/out.json" \
  'all(abs(c["wall"]["ratio"] - c["wall"]["gmean_b"] / c["wall"]["gmean_a"]) < 1e-9 for c in d["configs"])'
check "json: n=2 gives no test and no verdict" json_check "$TMP/out.json" \
  'all(c["wall"]["verdict"] == "n/a" and c["wall"]["p"] is None and c["wall"]["significant"] is None for c in d["configs"]) and d["summary"]["faster"] == 0 == d["summary"]["slower"]'
# the summary line first (issue 37); the rule in full with --explain, its pointer otherwise
check "text: opens with the summary line" bash -c "head -1 '$TMP/out.txt' | grep -q '^no-rollback vs stock: no test on .*, 0 of 2 configs decided$'"
check "text: where the rule is stated" grep -q "^rule: passmap compare --explain states it" "$TMP/out.txt"
check "--explain: the rule is stated" bash -c "'$PASSMAP' compare --explain '$TMP/a.db' '$TMP/b.db' | grep -q '^rule: ratio = geometric mean B / A; Welch t on log times'"
check "text: n=2 rows say so" grep -Eq "^compile wall .*n=2, no interval .* n/a$" "$TMP/out.txt"
# the table model: each side's geometric mean with its unit and interval note, the ratio with ×
check "text: side walls with units, ratio with ×" grep -Eq "^compile wall +2 +2 +[0-9.]+ (s|ms) \(n=2, no interval\) +[0-9.]+ (s|ms) \(n=2, no interval\) +[0-9.]+× " "$TMP/out.txt"
check "--threshold 5% is used" bash -c "'$PASSMAP' compare --json --threshold 5% '$TMP/a.db' '$TMP/b.db' | grep -q '\"threshold\": 0.05'"
"$PASSMAP" compare --threshold 150% "$TMP/a.db" "$TMP/b.db" >/dev/null 2>"$TMP/thr.err"
check "--threshold out of range is a usage error (2)" test $? -eq 2
check "json: per-pass presence" json_check "$TMP/out.json" \
  'any(p["pass"] == "ConvertToLLVMPass" and p["presence"] == "added" and p["mean_b"] > 0 for p in d["configs"][0]["passes"])'
check "json: llc passes compared on both sides" json_check "$TMP/out.json" \
  'any(p["tool"] == "llc" and p["presence"] == "both" and p["n_a"] == 2 and p["n_b"] == 2 for p in d["configs"][0]["passes"])'
check "json: pass totals and dominant tools" json_check "$TMP/out.json" \
  'len(d["passes"]) > 5 and sum(r["n_all"] for r in d["summary"]["by_dominant_tool"]) == 2 and d["only_a"] == [] == d["only_b"]'

check "markdown table" bash -c "'$PASSMAP' compare --markdown '$TMP/a.db' '$TMP/b.db' | grep -q '^| compile wall | 2 | 2 |'"
check "--top 2 limits pass rows" bash -c "'$PASSMAP' compare --top 2 '$TMP/a.db' '$TMP/b.db' | grep -q 'more passes; --all-passes'"

# Measured contention: CPU pressure over half of every run's wall (and a load of 0.1, which no longer matters).
cp "$TMP/c.db" "$TMP/psi.db"
sqlite3 "$TMP/psi.db" "DELETE FROM metric WHERE name LIKE 'host.%';
  INSERT INTO metric(run_id, name, value) SELECT id, 'host.load1', 0.1 FROM run;
  INSERT INTO metric(run_id, name, value) SELECT id, 'host.psi_cpu_some_us', wall_s * 500000 FROM run;
  INSERT INTO metric(run_id, name, value) SELECT id, 'host.steal_ms', 0 FROM run"
"$PASSMAP" compare "$TMP/psi.db" --a-variant stock --b-variant no-rollback >"$TMP/psi.txt"
check "contended by CPU pressure: named and withheld" grep -q "^contended: A (CPU pressure 50% of its wall > 10%), B (CPU pressure 50% of its wall > 10%); no conclusion (contended)" "$TMP/psi.txt"
sqlite3 "$TMP/psi.db" "UPDATE metric SET value = value / 50 WHERE name = 'host.psi_cpu_some_us';
  UPDATE metric SET value = 50 WHERE name = 'host.load1'"
"$PASSMAP" compare "$TMP/psi.db" --a-variant stock --b-variant no-rollback >"$TMP/psi.txt"
check "1% CPU pressure: not contended, whatever the load average says" bash -c "! grep -q '^contended:' '$TMP/psi.txt'"

# One database holding both variants.
"$PASSMAP" compare "$TMP/c.db" "$TMP/b.db" >/dev/null 2>"$TMP/amb.err"
check "ambiguous variant is a usage error (2)" test $? -eq 2
check "ambiguity message lists variants" grep -q "several variants (no-rollback, stock): pick one with --a-variant" "$TMP/amb.err"
check "one database, two variants" bash -c \
  "'$PASSMAP' compare '$TMP/c.db' --a-variant stock --b-variant no-rollback | grep -q '1 configs matched'"
"$PASSMAP" compare "$TMP/c.db" >/dev/null 2>&1
check "one database without variants: usage (2)" test $? -eq 2

# The report's in-sweep A/B marks are compare's: same ratio, Holm CI, p and verdict for every config, and the
# text and HTML tables show that verdict (c.db: stock and no-rollback, 3 repeats each). This machine is often
# loaded, so its runs may be contended: --allow-contended keeps the verdict rather than "no conclusion".
"$PASSMAP" compare --json --allow-contended "$TMP/c.db" --a-variant stock --b-variant no-rollback >"$TMP/c-cmp.json"
"$PASSMAP" report --json --allow-contended "$TMP/c.db" >"$TMP/c-rep.json"
check "report json: A/B against the reference variant" json_check "$TMP/c-rep.json" \
  '[(x["variant"], x["against"]) for x in d["ab"]["comparisons"]] == [("no-rollback", "stock")] and "Holm" in d["ab"]["rule"]'
check "report A/B == compare (ratio, CI, p, verdict per config)" python3 - "$TMP/c-cmp.json" "$TMP/c-rep.json" <<'PY'
import json, sys
c, r = (json.load(open(f)) for f in sys.argv[1:3])
rc = r["ab"]["comparisons"][0]["configs"]
assert len(rc) == len(c["configs"]) == 1
for x, y in zip(c["configs"], rc):
    assert x["key"] == y["key"]
    for k in ("ratio", "ci_lo", "ci_hi", "p_holm", "verdict", "n_a", "n_b"):
        a, b = x["wall"][k], y["wall"][k]
        assert (a == b) if isinstance(a, (str, int)) or a is None else abs(a - b) <= 1e-5 * abs(a), (k, a, b)
    assert y["wall"]["n_a"] == 3 and y["wall"]["verdict"] != "n/a", "3 repeats: tested"
PY
wverdict=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["configs"][0]["wall"]["verdict"])' "$TMP/c-cmp.json")
# the config's verdict is the deciding metric's (decide.h): "metric" when another than wall decided
verdict=$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["configs"][0]; print(c.get("metric", c["wall"])["verdict"])' "$TMP/c-cmp.json")
decided=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["summary"]["decided_on"])' "$TMP/c-cmp.json")
"$PASSMAP" compare --allow-contended "$TMP/c.db" --a-variant stock --b-variant no-rollback >"$TMP/c-cmp.txt"
# whatever the machine gave, the verdict is what the rule says of the printed interval, for every tested row
check "every verdict is the rule's for its interval" python3 - "$TMP/c-cmp.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["summary"]["threshold"]
rows = [c["wall"] for c in d["configs"]] + [c["metric"] for c in d["configs"] if "metric" in c] + [s for c in d["configs"] for s in c["steps"] + c["passes"]]
tested = [r for r in rows if r["p"] is not None]
assert tested, "3 repeats: some rows tested"
for r in tested:
    lo, hi = r["ci_lo"], r["ci_hi"]
    want = "faster" if hi < 1 - t else "slower" if lo > 1 + t else "same" if lo >= 1 - t and hi <= 1 + t else "undecided"
    if want == "undecided" and r["rule_verdict"] == "below resolution":   # its rounding bound alone keeps it
        assert r["rounding_bound_log"] > 0 and r["repeats_needed"] is None, r   # from every verdict, whatever n
    else:
        assert r["rule_verdict"] == want, (r, want)
    assert lo < hi and r["p"] > 0 and r["ci_kind"] == "simultaneous (Bonferroni)" and r["family_m"] >= 1
    assert abs(r["ci_level"] - (1 - 0.05 / r["family_m"])) < 1e-9   # JSON prints 10 digits
for r in rows:
    assert not (r["t"] is None and r["p"] == 0)
PY
# runs-to-settle on real compiles: every undecided row's "~N runs/side" is the smallest n at which the rule's own
# interval (the row's spread over n runs a side, Welch's df, its level, its rounding bound) would decide, found
# here by a brute-force scan with a t distribution written out below (docs/statistics.md)
"$PASSMAP" compare --json --all-passes --allow-contended "$TMP/c.db" --a-variant stock --b-variant no-rollback \
  >"$TMP/c-all.json"
check "runs to settle: the brute-force minimum on every undecided row" python3 - "$TMP/c-all.json" <<'PY'
import json, math, sys
def betacf(a, b, x):   # the incomplete beta's continued fraction (modified Lentz)
    tiny, qab, qap, qam = 1e-300, a + b, a + 1, a - 1
    c, d = 1.0, 1 - qab * x / qap
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 500):
        for aa in (m * (b - m) * x / ((qam + 2 * m) * (a + 2 * m)),
                   -(a + m) * (qab + m) * x / ((a + 2 * m) * (qap + 2 * m))):
            d = 1 + aa * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + aa / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-15:
            break
    return h
def ibeta(a, b, x):
    if x <= 0 or x >= 1:
        return max(0.0, min(1.0, x))
    bt = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log(1 - x))
    return bt * betacf(a, b, x) / a if x < (a + 1) / (a + b + 2) else 1 - bt * betacf(b, a, 1 - x) / b
def t_sf(t, df):   # P(T > t) for t >= 0
    return 0.5 * ibeta(df / 2, 0.5, df / (df + t * t))
d = json.load(open(sys.argv[1]))
t = d["summary"]["threshold"]
rows = [c["wall"] for c in d["configs"]] + [c["metric"] for c in d["configs"] if "metric" in c] + \
       [s for c in d["configs"] for s in c["steps"] + c["passes"]]
checked = 0
for r in rows:
    if r["rule_verdict"] != "undecided" or r["repeats_needed"] is None or r["n_a"] != r["n_b"]:
        continue
    est, va, vb, bias = r["repeats_needed"], r["var_log_a"], r["var_log_b"], r["rounding_bound_log"]
    alpha, diff, lf, ls = 0.05 / r["family_m"], math.log(r["ratio"]), math.log(1 - t), math.log(1 + t)
    margin = lf - diff if diff < lf else diff - ls if diff > ls else min(diff - lf, ls - diff)
    def decides(n):
        ua, ub = va / n, vb / n
        df = (ua + ub) ** 2 / ((ua * ua + ub * ub) / (n - 1))
        return margin - bias > 0 and t_sf((margin - bias) / math.sqrt(ua + ub), df) < alpha / 2 * (1 + 1e-6)
    if est > 4000:
        continue
    bf = next((n for n in range(3, int(est) + 2) if decides(n)), None)
    assert bf is not None and bf <= est <= 1.25 * bf, (r, bf)
    assert r["repeats_needed_lo"] <= est <= (r["repeats_needed_hi"] or float("inf")), r
    checked += 1
assert checked >= 1, "3 repeats, every pass tested: some rows undecided"
print("# runs to settle: %d undecided rows of real compiles at their brute-force minimum" % checked)
PY
vtext() { case $1 in undecided) echo "undecided( \(~[0-9]+ runs/side(, [0-9]+(-[0-9]+| or more))?\))?" ;; *) echo "$1" ;; esac; }
vtext=$(vtext "$verdict")   # the report marks the config with the deciding metric's verdict
check "compare text: the walls' interval is simultaneous over its one config" grep -q "^intervals: compile walls 95% simultaneous (Bonferroni, m=1); steps 95% simultaneous (Bonferroni, m=3)" "$TMP/c-cmp.txt"
check "compare text: compile wall marked $wverdict" grep -Eq "^compile wall +3 +3 .* $(vtext "$wverdict")$" "$TMP/c-cmp.txt"
check "compare text: says what decided ($decided)" grep -q "^decided on: $decided" "$TMP/c-cmp.txt"
if [ "$decided" != wall ]; then
  check "compare text: the deciding row, marked $verdict" grep -Eq "^compile ${decided//[()+]/.} +3 +3 .* $(vtext "$verdict")\$" "$TMP/c-cmp.txt"
fi
# serial, CPU-bound tools (null-input CPU/wall in [0.5, 1.1]) with user+sys in every run: CPU time or
# instructions decide; a load that drags the null-input runs below 0.5 leaves wall (decide.h)
check "compare: decided on one of the three metrics" bash -c "[[ '$decided' =~ ^(wall|cpu\ time\ \(user\+sys\)|instructions\ \(user\ space\))$ ]]"
COLUMNS=250 "$PASSMAP" report --allow-contended "$TMP/c.db" >"$TMP/c-rep.txt"   # one line per row: the check reads a whole row
# decisive columns first (config, B/A, mark), then the interval, p, the sides, their walls and the noise
# the pair and the deciding metric in the table's caption (issue 37); the row: the A and B of that metric beside
check "report text: A/B row marked $verdict" grep -Eq "^llm/qwen2/0.5b/w64/int8/L1/stock→no-rollback +[0-9.]+× +$vtext +\[[0-9.]+, [0-9.]+\] +[0-9.e-]+ +[0-9.]+ .*( +contended \((A|B|A, B)\))? *$" "$TMP/c-rep.txt"
check "report text: the A/B caption names the pair and what decided" grep -q "^variant no-rollback (B) vs stock (A); decided on: $decided" "$TMP/c-rep.txt"
check "report text: the rule stated once" test "$(grep -c "follow passmap compare's rule" "$TMP/c-rep.txt")" -eq 1
"$PASSMAP" report --allow-contended "$TMP/c.db" --html "$TMP/c.html" >/dev/null
check "report html: A/B table with the mark" grep -Eq "<td>$vtext</td>" "$TMP/c.html"

# No conclusion from contended runs. A copy of c.db made to look contended (load 50 at each run's start on a
# 1-CPU sweep): compare and the report withhold the verdict, with the reason; --allow-contended gives it back,
# marked; the numbers (ratio, Holm p and CI) are the same either way.
cp "$TMP/c.db" "$TMP/busy.db"
sqlite3 "$TMP/busy.db" "UPDATE sweep SET meta_json = json_set(coalesce(meta_json, '{}'), '\$.cpus', 1);
  DELETE FROM metric WHERE name = 'host.load1' OR name LIKE 'host.psi%' OR name = 'host.steal_ms';
  INSERT INTO metric(run_id, name, value) SELECT id, 'host.load1', 50 FROM run"
# (no CPU pressure recorded: an older store, where the load average is the fallback, contention.h)
"$PASSMAP" compare --json "$TMP/busy.db" --a-variant stock --b-variant no-rollback >"$TMP/busy.json"
"$PASSMAP" compare --json --allow-contended "$TMP/busy.db" --a-variant stock --b-variant no-rollback >"$TMP/busy-allow.json"
check "contended: compare withholds the verdict, says why" json_check "$TMP/busy.json" \
  '(w := d["configs"][0]["wall"])["verdict"] == "no conclusion (contended)" and w["significant"] is None and w["contended"] and d["configs"][0]["contended"] == {"a": "load 50.0 > 1 CPUs", "b": "load 50.0 > 1 CPUs"} and d["summary"]["contended"] == 1 and d["summary"]["faster"] == 0 == d["summary"]["slower"]'
check "contended: the rule's verdict is kept beside it" python3 - "$TMP/busy.json" "$TMP/busy-allow.json" "$TMP/c-cmp.json" <<'PY'
import json, sys
held, allow, calm = (json.load(open(f))["configs"][0]["wall"] for f in sys.argv[1:4])
assert held["rule_verdict"] == allow["verdict"] == calm["verdict"] != "n/a", (held, allow, calm)
assert allow["contended"] and allow["rule_verdict"] == allow["verdict"]
for k in ("ratio", "p_holm", "ci_lo", "ci_hi"):
    assert held[k] == allow[k] == calm[k], k
PY
"$PASSMAP" compare "$TMP/busy.db" --a-variant stock --b-variant no-rollback >"$TMP/busy.txt"
check "contended: text names both sides and withholds" grep -q "^contended: A (load 50.0 > 1 CPUs), B (load 50.0 > 1 CPUs); no conclusion (contended)" "$TMP/busy.txt"
check "contended: compile wall row reads no conclusion" grep -Eq "^compile wall +3 +3 .* no conclusion \(contended\)$" "$TMP/busy.txt"
check "contended: the rule says so (--explain)" bash -c \
  "'$PASSMAP' compare --explain '$TMP/busy.db' --a-variant stock --b-variant no-rollback | grep -q '^rule: .*no conclusion (contended) when the A or B runs were contended'"
check "--allow-contended: the rule says the verdicts are kept" bash -c \
  "'$PASSMAP' compare --explain --allow-contended '$TMP/busy.db' --a-variant stock --b-variant no-rollback | grep -q '^rule: .*keep their verdict, marked contended (--allow-contended)'"
COLUMNS=250 "$PASSMAP" report "$TMP/busy.db" >"$TMP/busy-rep.txt"
check "contended: report A/B row withheld, sides named" grep -Eq "^llm/qwen2/0.5b/w64/int8/L1/stock→no-rollback +[0-9.]+× +no conclusion \(contended\) +\[[0-9.]+, [0-9.]+\] +[0-9.e-]+ +[0-9.]+ .* contended \(A, B\) *$" "$TMP/busy-rep.txt"
check "contended: report headline draws no summary from it, says so" grep -q "^  no-rollback vs stock: no conclusion on [a-z +()]*: 1 of 1 config contended, 0 of 1 config decided$" "$TMP/busy-rep.txt"
check "contended: compare's summary line says the same" grep -Eq "^1 configs matched; compile (wall|cpu time \(user\+sys\)) B/A: no summary: none of 1 config decided \(1 contended withheld left out\)" "$TMP/busy.txt"
check "--help names --allow-contended" bash -c "'$PASSMAP' compare --help | grep -q -- '--allow-contended'"

# Errors.
"$PASSMAP" compare "$TMP/missing.db" "$TMP/b.db" >/dev/null 2>"$TMP/miss.err"
check "missing database exits 1" test $? -eq 1
check "missing database message" grep -q "missing.db: no such database" "$TMP/miss.err"
check "missing database not created" test ! -e "$TMP/missing.db"
echo "not sqlite" >"$TMP/junk.db"
check_fails "junk database fails" "$PASSMAP" compare "$TMP/junk.db" "$TMP/b.db"
"$PASSMAP" compare --top x "$TMP/a.db" "$TMP/b.db" >/dev/null 2>&1
check "bad --top: usage (2)" test $? -eq 2
"$PASSMAP" compare >/dev/null 2>&1
check "no arguments: usage (2)" test $? -eq 2
check "--help exits 0" bash -c "'$PASSMAP' compare --help | grep -q '^usage: passmap compare'"

# Nothing matches: exit 1, unmatched configs listed.
"$PASSMAP" compare "$TMP/a.db" "$TMP/d.db" >"$TMP/nomatch.txt" 2>"$TMP/nomatch.err"
check "no match exits 1" test $? -eq 1
check "unmatched listed" grep -q "only in B: llm/qwen2/0.5b/w32/int8/L1/stock" "$TMP/nomatch.txt"
check "no match said on stderr" grep -q "no config matched (2 only in A, 1 only in B)" "$TMP/nomatch.err"

finish
