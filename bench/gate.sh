#!/usr/bin/env bash
# The gate's acceptance (issue 36, "How we will know"), on llc (the demo pipeline's last stage) over two small
# generated LLVM IR inputs, a config each, 3 repeats, measured with the valgrind meter where it is installed (its
# instruction counts do not move with the machine's load), else the wall meter:
# - a build compared with itself 20 times: `passmap gate BASELINE SWEEP` exits 1 in 0 of 20;
# - an injected 5% regression of one config: exit 1 in 20 of 20. Injected as a slower build on the same inputs
#   (a config's input is in its fingerprint, so a larger input is another config, exit 3 "not the same config"):
#   the spec's llc is a wrapper in the spec's folder; the regressed build's wrapper compiles config b's input
#   with 5% more functions appended, the way a compiler that does 5% more work on it would;
# - an undecidable case (the sweep has 2 repeats: no test from n < 3): exit 3.
# Cheap by design: one stored baseline (`passmap baseline` file) that every gate reads. With the valgrind meter a
# sweep's counts are the same every time (the rule decides on them, so a rerun changes no verdict): it records
# BENCH_GATE_SWEEPS (default 1: the rule allows it) same-build and as many regressed sweeps, 20 gates each;
# with the wall meter every one of the 20 is a sweep of its own. Prints the load at the start and at the end.
# BENCH_GATE_FUNCS (default 40): functions per input; BENCH_GATE_METER=wall forces the wall meter.
source "$(dirname "$0")/lib.sh"
bench_machine
LLC=$LLVM_BIN/llc
[ -x "$LLC" ] || { bench_skip gate same_build_exit1 "no llc in $LLVM_BIN"; exit 0; }
meter=${BENCH_GATE_METER:-valgrind}
[ "$meter" = valgrind ] && ! command -v valgrind >/dev/null && meter=wall
k=${BENCH_GATE_FUNCS:-40}
k5=$(( k + (k * 5 + 99) / 100 ))   # 5% more functions, at least one
gates=20
if [ "$meter" = valgrind ]; then sweeps=${BENCH_GATE_SWEEPS:-1}; else sweeps=$gates; fi

ir() { # FILE N SALT: N functions with a loop each
  awk -v n="$2" -v salt="$3" 'BEGIN {
    for (f = 0; f < n; f++) {
      printf "define i64 @g%d(i64 %%n, i64 %%s) {\nentry:\n  br label %%body\nbody:\n", f
      printf "  %%k = phi i64 [ 0, %%entry ], [ %%k1, %%body ]\n  %%v = phi i64 [ %%s, %%entry ], [ %%v3, %%body ]\n"
      printf "  %%v1 = shl i64 %%v, %d\n  %%v2 = or i64 %%v1, %%k\n  %%v3 = urem i64 %%v2, %d\n", f % 5 + 1, f + salt + 11
      printf "  %%k1 = add i64 %%k, 1\n  %%more = icmp ult i64 %%k1, %%n\n  br i1 %%more, label %%body, label %%done\n"
      printf "done:\n  ret i64 %%v3\n}\n"
    }
  }' >"$1"
}
spec() { # DIR REPEATS [NAME]: a spec (DIR/NAME.ini, default gate) over DIR's a.ll and b.ll, compiled by DIR/bin/llc
  printf '[sweep]\nname = gate\nbackend = command\nrepeats = %s\nmeter = %s\ntimeout = 300s\n[matrix m]\ninput = a.ll, b.ll\n[step llc]\nargv = {spec_dir}/bin/llc -O2 -time-passes {input} -o {out}/out.s\ntool = llc\n' \
    "$2" "$meter" >"$1/${3:-gate}.ini"
}
build() { # DIR stock|regressed: DIR/bin/llc, the build the next sweeps of DIR measure
  mkdir -p "$1/bin" "$1/tmp"
  if [ "$2" = stock ]; then
    printf '#!/bin/sh\nexec %s "$@"\n' "$LLC" >"$1/bin/llc.new"
  else   # config b's input is compiled with the extra functions (extra.ll) appended: 5% more work on it
    cat >"$1/bin/llc.new" <<SH
#!/bin/sh
for a; do
  shift
  case \$a in *b.ll) t=$1/tmp/b.\$\$.ll; cat "\$a" $1/extra.ll >"\$t"; a=\$t;; esac
  set -- "\$@" "\$a"
done
exec $LLC "\$@"
SH
  fi
  chmod +x "$1/bin/llc.new" && mv "$1/bin/llc.new" "$1/bin/llc"
}
sweep() { # DIR DB [NAME]
  "$PASSMAP" sweep --quiet --db "$2" "$1/${3:-gate}.ini" >"$2.log" 2>&1 || { sed 's/^/  /' "$2.log" | tail -5; return 1; }
}
# one folder, so every sweep's argv ({spec_dir}/bin/llc) and inputs are the same: only the build changes
w=$BENCH_TMP/w
mkdir -p "$w"
ir "$w/a.ll" "$k" 0
ir "$w/b.ll" "$k" 7
ir "$BENCH_TMP/b5.ll" "$k5" 7       # b's functions and 5% more: the extra ones are what the regressed build adds
grep -n '^define' "$BENCH_TMP/b5.ll" | sed -n "$((k + 1))p" | cut -d: -f1 |
  { read -r line; tail -n +"$line" "$BENCH_TMP/b5.ll" >"$w/extra.ll"; }
spec "$w" 3; spec "$w" 2 n2
build "$w" stock
echo "gate: llc ($LLC) on $k functions per input (the regressed build compiles b as $k5), 2 configs, 3 repeats, meter $meter;"
echo "      $sweeps same-build and $sweeps regressed sweeps for $gates gates each"

t0=$(date +%s)
sweep "$w" "$BENCH_TMP/base.db" || { bench_skip gate same_build_exit1 "the baseline sweep failed"; exit 1; }
"$PASSMAP" baseline "$BENCH_TMP/base.db" -o "$BENCH_TMP/base.tsv" 2>/dev/null ||
  { bench_skip gate same_build_exit1 "passmap baseline failed"; exit 1; }
for i in $(seq 1 "$sweeps"); do
  sweep "$w" "$BENCH_TMP/same$i.db" || { bench_skip gate same_build_exit1 "sweep $i failed"; exit 1; }
done
sweep "$w" "$BENCH_TMP/n2.db" n2 || { bench_skip gate undecidable_exit "the n=2 sweep failed"; exit 1; }
build "$w" regressed
for i in $(seq 1 "$sweeps"); do
  sweep "$w" "$BENCH_TMP/reg$i.db" || { bench_skip gate regression_exit1 "regressed sweep $i failed"; exit 1; }
done
t_sweeps=$(( $(date +%s) - t0 ))

same1=0 reg1=0 other=""
for g in $(seq 1 "$gates"); do
  i=$(( (g - 1) % sweeps + 1 ))
  "$PASSMAP" gate "$BENCH_TMP/base.tsv" "$BENCH_TMP/same$i.db" >"$BENCH_TMP/same.out" 2>&1
  rc=$?; [ "$rc" = 1 ] && same1=$((same1 + 1)); [ "$rc" = 0 ] || other="$other same:$rc"
  "$PASSMAP" gate "$BENCH_TMP/base.tsv" "$BENCH_TMP/reg$i.db" >"$BENCH_TMP/reg.out" 2>&1
  rc=$?; [ "$rc" = 1 ] && grep -Eq "^REGRESSION +m/input=b\.ll " "$BENCH_TMP/reg.out" &&
    ! grep -Eq "^REGRESSION +m/input=a\.ll " "$BENCH_TMP/reg.out" && reg1=$((reg1 + 1))
  [ "$rc" = 1 ] || other="$other reg:$rc"
done
"$PASSMAP" gate "$BENCH_TMP/base.tsv" "$BENCH_TMP/n2.db" >"$BENCH_TMP/n2.out" 2>&1
n2=$?
ratio=$(sed -n 's/^REGRESSION \+m\/input=b\.ll \+compile [a-z]* \+\([0-9.]*×[^A-Za-z]*\).*/\1/p' "$BENCH_TMP/reg.out" | head -1)
echo "sweeps: $t_sweeps s; last regression gate: $(head -1 "$BENCH_TMP/reg.out")"
[ -n "$ratio" ] && echo "  config b, whole compile: $ratio"
[ -n "$other" ] && echo "  exits other than expected:$other"
echo "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
bench_result gate same_build_exit1 "$same1" gates "" "value==0" "of $gates, meter $meter"
bench_result gate regression_exit1 "$reg1" gates "" "value==$gates" "of $gates, only config b named, meter $meter"
bench_result gate undecidable_exit "$n2" status "" "value==3" "n=2 repeats: no test"
