#!/usr/bin/env bash
# Both sides of passmap fix's ledger, and the report's fixes coming from passmap fix's own plan.
#  1. A command study (clang-22, -ftime-trace) of a generated C program with one hot loop, with a [run] step that
#     runs the binary and a [fix o0] that swaps -O2 for -O0: o0 compiles faster, computes the same (the [check]
#     compares the programs' output), and its program runs slower (no unrolling or vectorising of the hot loop):
#     a trade-off with its measured run-time ratio, never recommended, unless --accept-slower-code.
#  2. The report proposes only what `passmap fix --dry-run` plans: the headline's fix is one of the plan's.
#  3. A study with no readable timing report proposes no fix (report and passmap fix alike).
# The machine may be loaded: --allow-contended keeps verdicts (marked), as the other fix tests do.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
CLANG=$(command -v clang-22 || echo "$LLVM_BIN/clang")
if [ ! -x "$CLANG" ]; then ok "# SKIP no clang-22"; finish; exit; fi
json_check() { # FILE PYTHON-EXPR-ON-d
  python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); sys.exit(0 if eval(sys.argv[2]) else 1)' "$1" "$2"
}

mkdir -p "$TMP/c/src"
python3 - "$TMP/c/src/prog.c" <<'PY'
import sys
out = ["#include <stdio.h>", "#include <stdlib.h>"]
# cold code: small functions with loops, so -O2 has work to do that -O0 skips
for i in range(120):
    out.append(f"unsigned f{i}(unsigned *a, unsigned m) {{ unsigned s = {i}u; for (unsigned k = 0; k < m; k++) "
               f"{{ s = s * 31u + a[k % 64] + (s >> {i % 7 + 1}); if (s & {1 << (i % 16)}u) a[k % 64] ^= s; }} return s; }}")
# the hot loop: -O2 unrolls and vectorises it, -O0 does neither
out.append("""static unsigned hot(const unsigned *v, unsigned n)
{
    unsigned s = 0;
    for (unsigned r = 0; r < 1500; r++)
        for (unsigned i = 0; i < n; i++)
            s += v[i] * 2654435761u ^ (v[i] >> 3);
    return s;
}
int main(int argc, char **argv)
{
    unsigned n = 1u << 16, *v = malloc(n * sizeof *v), a[64] = {0};
    for (unsigned i = 0; i < n; i++)
        v[i] = i * 7u + 1u;
    unsigned r = hot(v, n);
    if (argc > 5)
        r += f0(a, (unsigned)argc);
    printf("%u\\n", r);
    free(v);
    return 0;
}""")
open(sys.argv[1], "w").write("\n".join(out) + "\n")
PY
cat >"$TMP/c/s.ini" <<INI
[sweep]
name = s
backend = command
repeats = 3
timeout = 300s

[matrix c]
input = src/*.c

[step cc]
argv = $CLANG -O2 -c {input} -o {out}/prog.o -ftime-trace
report = {out}/prog.json
tool = clang

[step link]
argv = $CLANG {out}/prog.o -o {out}/prog
tool = clang

[fix o0]
step = cc
argv_drop = -O2
argv_add = -O0
why = no optimisation: much less compile work, and the hot loop is neither unrolled nor vectorised

[check]
argv = sh -c "{stock_out}/prog > {out}/stock.txt && {out}/prog > {out}/fix.txt && cmp {out}/stock.txt {out}/fix.txt"

[run]
argv = {out}/prog
size = {out}/prog
INI
check "the study" "$PASSMAP" sweep --quiet --db "$TMP/s.db" "$TMP/c/s.ini"

# 2. the report's headline fix is one the dry run plans (same catalogue, same rules)
"$PASSMAP" fix "$TMP/s.db" --dry-run --allow-contended --json >"$TMP/plan.json" 2>"$TMP/plan.err"
rep=$("$PASSMAP" report "$TMP/s.db" --sweep s --allow-contended 2>&1)
top=$(echo "$rep" | sed -n 's/^  top fix: \([^ ]*\) .*/\1/p')
planned=$(python3 -c 'import json,sys; print(" ".join(f["name"] for f in json.load(open(sys.argv[1]))["fixes"] if f["configs"]))' "$TMP/plan.json")
case " $planned " in
  *" $top "*) [ -n "$top" ] && ok "the headline's fix ($top) is one passmap fix --dry-run plans ($planned)" || fail "no top fix" ;;
  *) fail "headline fix '$top' is not planned by the dry run ($planned)"; echo "$rep" | sed -n '1,12p' | sed 's/^/#   /' ;;
esac
echo "$rep" | grep -q "predicted for .*, not measured" && ok "an unmeasured fix is marked predicted, with its rule" \
  || fail "no 'predicted' mark"
echo "$rep" | tail -3 | grep -q "passmap fix $TMP/s.db --budget" && ok "the report ends with the one command that proves fixes" \
  || { fail "report end"; echo "$rep" | tail -3 | sed 's/^/#   /'; }

# 1. the ledger: o0 is faster to compile and slower to run, so a trade-off
"$PASSMAP" fix "$TMP/s.db" --max-repeats 5 --quiet --allow-contended --json >"$TMP/fix.json" 2>"$TMP/fix.err"
rc=$?
[ $rc = 0 ] && ok "passmap fix ran" || { fail "passmap fix rc=$rc"; tail -20 "$TMP/fix.err" | sed 's/^/#   /'; }
o0() { python3 -c 'import json,sys; r=[r for r in json.load(open(sys.argv[1]))["results"] if r["name"]=="o0"][0]; print(eval(sys.argv[2]))' "$TMP/fix.json" "$1"; }
if [ "$(o0 'r["verdict"]')" = faster ] && [ "$(o0 'r["output"]')" = "same ([check] exits 0)" ]; then
  ok "o0 compiles faster ($(o0 '"%.3f" % r["ratio"]')x) and its program computes the same"
else fail "o0: $(o0 'r["verdict"], r["output"]')"; fi
if [ "$(o0 'r["run"]["verdict"]')" = slower ] && [ "$(o0 'r["tradeoff"]')" = True ] &&
   [ "$(o0 'r["run"]["ratio"] > 1.2 and r["run"]["n"] >= 3')" = True ]; then
  ok "o0's program runs slower: a trade-off, run-time ratio $(o0 '"%.2f [%.2f, %.2f] n=%d" % (r["run"]["ratio"], r["run"]["ci_lo"], r["run"]["ci_hi"], r["run"]["n"])')"
else fail "o0 run side: $(o0 'r.get("run"), r.get("tradeoff")')"; fi
[ "$(o0 'r["size"]["what"] == "size of prog" and r["size"]["stock_bytes"] > 0 and r["size"]["fix_bytes"] > 0')" = True ] \
  && ok "the output's size is measured on both sides ($(o0 '"%.3f" % r["size"]["ratio"]')x)" || fail "size: $(o0 'r.get("size")')"
json_check "$TMP/fix.json" 'd["recommended"] is None or not d["recommended"]["ship"]' \
  && ok "a trade-off is never recommended without --accept-slower-code" || fail "recommended: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recommended"])' "$TMP/fix.json")"
json_check "$TMP/fix.json" '[(p["variant"], p["tradeoff"]) for p in d["frontier"]] == [("stock", False), ("o0", True)]' \
  && ok "the frontier holds stock and o0 (compile vs run time), o0 marked a trade-off" \
  || fail "frontier: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("frontier"))' "$TMP/fix.json")"
rep=$("$PASSMAP" report "$TMP/s.db" --sweep s --allow-contended 2>&1)
# the ledger is one table (fix, against, rule, B/A, verdict, configs, output, program): one line per fix
echo "$rep" | grep -q "^o0 .*trade-off" && echo "$rep" | grep -Eq "^o0 .* run [0-9.]+x \[[0-9.]+, [0-9.]+\], slower" \
  && ok "the report's proven table marks o0 a trade-off with its run-time ratio" \
  || { fail "report: trade-off"; echo "$rep" | sed -n '1,10p' | sed 's/^/#   /'; }
echo "$rep" | grep -q "o0: measured a trade-off: faster to compile, slower to run (compile [0-9.]*x, run [0-9.]*x" && ok "the fix table's row shows the proven ledger" \
  || { fail "fix table row"; echo "$rep" | grep -A3 "^regime.*fix$" | sed 's/^/#   /'; }

# accepted: the same measurements (resumed, no new compile runs), now recommended
"$PASSMAP" fix "$TMP/s.db" --max-repeats 5 --quiet --allow-contended --accept-slower-code --json >"$TMP/fix2.json" 2>/dev/null
json_check "$TMP/fix2.json" 'd["recommended"]["variant"] == "o0" and d["recommended"]["ship"] and d["recommended"]["tradeoff"]' \
  && ok "--accept-slower-code: the trade-off may be recommended (and still says it is one)" \
  || fail "accept: $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["recommended"])' "$TMP/fix2.json")"

# 3. no readable timing report: nothing to propose from
sed -e 's/ -ftime-trace//' -e '/^report = /d' -e 's/^name = s$/name = n/' "$TMP/c/s.ini" >"$TMP/c/n.ini"
# every run no-report: the runs were measured, the sweep warns why they conclude nothing (exit 0)
check "a study without a timing report" "$PASSMAP" sweep --quiet --db "$TMP/n.db" "$TMP/c/n.ini"
rep=$("$PASSMAP" report "$TMP/n.db" --allow-contended 2>&1)
echo "$rep" | grep -q "top fix: no fix proposed" && echo "$rep" | grep -q "no readable timing report" \
  && ok "no readable report: the report proposes no fix, and says why" \
  || { fail "no-report headline"; echo "$rep" | grep -E "top fix|timing report" | sed 's/^/#   /'; }
echo "$rep" | grep -q "o0: predicted" && fail "a fix predicted from a wall alone" || ok "no fix row predicted from a wall alone"
out=$("$PASSMAP" fix "$TMP/n.db" --dry-run --allow-contended 2>&1)
echo "$out" | grep -qE "readable timing report|no stock config with a successful cold run" \
  && ok "passmap fix plans nothing from it either: $out" || fail "fix on no report: $out"
finish
