#!/usr/bin/env bash
# make demo installs only what the demo needs; make test and make bench add their own extras (issue 23);
# the demo keeps an earlier demo-out/ unless DEMO_FRESH=1, and says which it did.
source "$(dirname "$0")/lib.sh"
D=$ROOT/scripts/install-deps.sh
demo=" $("$D" --list demo | tr '\n' ' ') "
test=" $("$D" --list test | tr '\n' ' ') "
bench=" $("$D" --list bench | tr '\n' ' ') "
all=" $("$D" --list | tr '\n' ' ') "
has() { [[ "$1" == *" $2 "* ]]; }
for p in libsqlite3-dev libjansson-dev libgsl-dev libzstd-dev libxxhash-dev gnuplot-nox; do
  has "$demo" "$p" && ok "demo profile: $p" || fail "demo profile lacks $p: $demo"
done
[[ "$demo" =~ \ mlir-[0-9]+-tools\  ]] && [[ "$demo" =~ \ llvm-[0-9]+\  ]] && ok "demo profile: MLIR/LLVM tools" \
  || fail "demo profile lacks MLIR/LLVM: $demo"
bad=""
for p in slurmctld slurmd munge chromium ccache hyperfine python3-pandas libcmocka-dev; do has "$demo" "$p" && bad+=" $p"; done
[[ "$demo" =~ \ clang-[0-9]+\  ]] && bad+=" clang"
[ -z "$bad" ] && ok "demo profile installs no test or bench extras" || fail "demo profile has:$bad"
for p in libcmocka-dev sqlite3 jq python3 chromium slurmd munge gnuplot-nox; do
  has "$test" "$p" && ok "test profile: $p" || fail "test profile lacks $p"
done
for p in ccache hyperfine python3-pandas nodejs gnuplot-nox; do has "$bench" "$p" && ok "bench profile: $p" || fail "bench profile lacks $p"; done
has "$test" hyperfine && fail "test profile has bench peers" || ok "test profile has no bench peers"
for p in $test $bench; do has "$all" "$p" || fail "all lacks $p"; done; ok "all = demo + test + bench"
check_fails "an unknown profile is refused" "$D" --list demos
out=$(make -s -n -C "$ROOT" demo 2>&1); echo "$out" | grep -q 'install-deps.sh demo$' && ok "make demo: demo profile" || fail "make demo: $out"
out=$(make -s -n -C "$ROOT" test 2>&1); echo "$out" | grep -q 'install-deps.sh test$' && ok "make test: test profile" || fail "make test: $out"
out=$(make -s -n -C "$ROOT" bench 2>&1); echo "$out" | grep -q 'install-deps.sh bench$' && ok "make bench: bench profile" || fail "make bench"

# scripts/demo.sh with a stand-in passmap: what it keeps
cat > "$TMP/pm" <<'SH'
#!/usr/bin/env bash
[ "$1" = sweep ] && echo run >> "$3"
[ "$1" = report ] && echo report
exit 0
SH
chmod +x "$TMP/pm"
export DEMO_OUT=$TMP/out
out=$(DEMO_FRESH=0 "$ROOT/scripts/demo.sh" "$TMP/pm" 2>&1) && [ "$(wc -l < "$TMP/out/demo.db")" = 1 ] \
  && ok "first demo" || fail "first demo: $out"
out=$(DEMO_FRESH=0 "$ROOT/scripts/demo.sh" "$TMP/pm" 2>&1)
[ "$(wc -l < "$TMP/out/demo.db")" = 2 ] && echo "$out" | grep -q "resuming the earlier demo in $TMP/out" \
  && ok "second demo keeps and resumes the earlier database, and says so" || fail "kept: $out"
out=$(DEMO_FRESH=1 "$ROOT/scripts/demo.sh" "$TMP/pm" 2>&1)
[ "$(wc -l < "$TMP/out/demo.db")" = 1 ] && echo "$out" | grep -q "DEMO_FRESH=1: replacing the earlier demo in $TMP/out" \
  && ok "DEMO_FRESH=1 replaces it and says so" || fail "fresh: $out"
finish
