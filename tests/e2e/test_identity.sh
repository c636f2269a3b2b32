#!/usr/bin/env bash
# A spec is a contract and the compiler has one identity, on real tools: two builds of llc (llc-22 and llc-14)
# reached under one name `llc` through PATH, /bin/sh for runs that fail. An edited spec or another llc build
# refuses the sweep (one line per config), --name sweeps beside it, --force supersedes the old runs (kept in
# their own sweep, never in the report); failed runs count as done until --retry-failed; status, report (text,
# JSON, HTML Method) name each tool's path, --version and hash; merge refuses a shard of another llc build
# (--force: recorded, the report says two builds), and never mixes one config's two measurements; report,
# show and trace default to the study, not a STUDY-fix sweep beside it; report --json carries axes and metrics.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
q() { sqlite3 "$1" "$2"; }
LLC22=$(command -v llc-22 || true)
LLC14=$(command -v llc-14 || true)
if [ -z "$LLC22" ] || [ -z "$LLC14" ]; then
  echo "# llc-22 and llc-14 are needed (make deps)"; fail "llc-22 and llc-14 installed"; finish; exit
fi
mkdir -p "$TMP/b22" "$TMP/b14" "$TMP/s"
ln -s "$LLC22" "$TMP/b22/llc"
ln -s "$LLC14" "$TMP/b14/llc"
P22=$TMP/b22:$PATH
P14=$TMP/b14:$PATH
cat > "$TMP/s/a.ll" <<'LL'
define i32 @f(i32 %x) {
  %y = mul i32 %x, 3
  ret i32 %y
}
LL
spec() {   # spec FILE EXTRA-LLC-FLAGS
  cat > "$1" <<INI
[sweep]
name = s
backend = command
repeats = 2

[matrix m]
input = a.ll
opt = 0, 2

[step llc]
argv = llc -O{opt} {input} -o {out}/a.s -time-passes $2
tool = llc
ir.asm_lines = lines {out}/a.s
INI
}
spec "$TMP/s/s.ini" ""
db=$TMP/s.db

# --- tool identity recorded, shown in status and report ---
check "sweep with llc-22" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini"
row=$(q "$db" "select name, path, hash, version_text like '%LLVM version 22%' from tool")
case "$row" in
  "llc|$TMP/b22/llc|xxh3-128:"*"|1") ok "tool row: llc, its PATH-resolved path, hash, --version text" ;;
  *) fail "tool row: $row" ;;
esac
h22=$(q "$db" "select hash from tool")
[ "$(q "$db" "select count(*) from config where fingerprint like 'xxh3-128:%' and fingerprint_text like '%tool: $h22%'")" = 2 ] \
  && ok "each config's fingerprint names the llc build" || fail "config fingerprints: $(q "$db" "select fingerprint_text from config limit 1")"
out=$("$PASSMAP" status "$db")
echo "$out" | grep -q "tool llc $TMP/b22/llc (.*LLVM version 22.*) $h22" && ok "status shows the tool identity" \
  || fail "status: $out"
out=$("$PASSMAP" report "$db")
echo "$out" | grep -q "^  llc  *$TMP/b22/llc  .*LLVM version 22.*  $h22" && ok "report Method: tool path, version, hash" \
  || fail "report tools: $(echo "$out" | head -5)"
"$PASSMAP" report "$db" --json > "$TMP/r.json"
python3 - "$TMP/r.json" "$h22" <<'PY' && ok "report --json: tools, axes, metrics, kind command" || fail "report --json"
import json, sys
j = json.load(open(sys.argv[1]))
assert j["tools"][0]["name"] == "llc" and j["tools"][0]["hash"] == sys.argv[2], j["tools"]
assert "LLVM version 22" in j["tools"][0]["version_text"] and j["mixed_builds"] is False
c = {x["key"]: x for x in j["configs"]}["m/input=a.ll/opt=2"]
assert c["axes"] == {"input": "a.ll", "opt": "2"}, c["axes"]
assert c["metrics"]["ir.asm_lines"] > 0, c["metrics"]
assert c["kind"] == "command", c["kind"]
PY
if command -v gnuplot >/dev/null; then
  "$PASSMAP" report "$db" --html "$TMP/r.html" >/dev/null 2>&1
  grep -q "<b>tools</b> (one build each" "$TMP/r.html" && grep -q "$h22" "$TMP/r.html" && ok "HTML Method: tools" \
    || fail "HTML Method: tools"
fi

# run --db records the measured command's identity the same way
check "run --db with llc-22" "$PASSMAP" run -n 1 --db "$TMP/r.db" --config c/x=1 -- "$LLC22" -O0 "$TMP/s/a.ll" -o "$TMP/s/a.s" -time-passes
[ "$(q "$TMP/r.db" "select name || ' ' || path || ' ' || hash from tool")" = "llc $LLC22 $h22" ] \
  && ok "run --db: the tool identity recorded" || fail "run --db tool: $(q "$TMP/r.db" "select * from tool")"

# --- another llc build under the same name: refused, one line per config, nothing recorded ---
n0=$(q "$db" "select count(*) from run")
out=$(env PATH="$P14" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini" 2>&1); rc=$?
[ "$rc" = 2 ] && ok "llc-14 into llc-22's store: refused (exit 2)" || fail "llc-14 refused (rc=$rc): $out"
[ "$(echo "$out" | grep -c "^passmap sweep: config m/input=a.ll/opt=.: .*tool: $h22 .*LLVM version 22.* -> .*LLVM version 14")" = 2 ] \
  && ok "one line per changed config, old and new build" || fail "change lines: $out"
echo "$out" | grep -q "the steps of 2 recorded configs changed.*--force" && ok "the refusal says what to do" \
  || fail "refusal: $out"
[ "$(q "$db" "select count(*) from run")" = "$n0" ] && ok "nothing recorded by the refused sweep" || fail "runs added"

# --- an edited argv: refused; --name sweeps beside it; --force supersedes ---
spec "$TMP/s/s.ini" "-mcpu=generic"
out=$(env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "config m/input=a.ll/opt=0: .*-time-passes' -> .*-time-passes -mcpu=generic'" \
  && ok "edited argv refused, the change shown" || fail "edited argv (rc=$rc): $out"
check "--name: the edited spec as a new sweep of the same store" \
  env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" --name s2 "$TMP/s/s.ini"
[ "$(q "$db" "select count(*) from run r join config c on c.id=r.config_id join sweep w on w.id=c.sweep_id where w.name='s2'")" = 4 ] \
  && ok "--name: 4 runs in sweep s2" || fail "--name runs"
out=$(env PATH="$P22" "$PASSMAP" sweep --quiet --force --db "$db" "$TMP/s/s.ini" 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q -- "--force: 2 changed configs superseded (4 runs kept in sweep 's~superseded-" \
  && ok "--force supersedes the changed configs' runs" || fail "--force (rc=$rc): $out"
sup=$(q "$db" "select name from sweep where superseded_by = 's'")
[ "$(q "$db" "select count(*) from run r join config c on c.id=r.config_id join sweep w on w.id=c.sweep_id where w.name='$sup'")" = 4 ] \
  && ok "the old runs are kept in $sup" || fail "superseded runs"
[ "$(q "$db" "select count(*) from run r join config c on c.id=r.config_id join sweep w on w.id=c.sweep_id where w.name='s'")" = 4 ] \
  && ok "study s holds only the new runs" || fail "study runs"
[ "$(q "$db" "select spec_text like '%mcpu%' from sweep where name='$sup'")" = 0 ] \
  && [ "$(q "$db" "select spec_text like '%mcpu%' from sweep where name='s'")" = 1 ] \
  && ok "each sweep keeps the spec text its runs were made with" || fail "spec texts"
out=$("$PASSMAP" report "$db" --sweep s)
echo "$out" | grep -q "^sweep s (command): 2 configs, 4 ok runs" && ok "the report never mixes the superseded runs" \
  || fail "report after --force: $(echo "$out" | head -2)"
check "resume after --force: nothing left, not refused" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini"
# the C library's allocator settings change a compile's time without showing in its argv (issue 34.8)
for v in GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0 MALLOC_ARENA_MAX=1; do
  out=$(env PATH="$P22" "$v" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini" 2>&1); rc=$?
  [ "$rc" = 2 ] && echo "$out" | grep -q "env ${v%%=*}=" && ok "resume under $v: refused, the variable named" \
    || fail "resume under $v (rc=$rc): $out"
done
# an input file edited before a resume is another measurement: its content is in the fingerprint (issue 34.5)
cp "$TMP/s/a.ll" "$TMP/s/a.ll.orig"
printf 'define i32 @g() {\n  ret i32 7\n}\n' >> "$TMP/s/a.ll"
out=$(env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "config m/input=a.ll/opt=0: 'input input: xxh3-128:[0-9a-f]*' -> 'input input: xxh3-128:" \
  && ok "an input edited before a resume: refused, the input named" || fail "edited input (rc=$rc): $out"
mv "$TMP/s/a.ll.orig" "$TMP/s/a.ll"
check "the input as it was: the resume is accepted" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini"

# --- a store from before config fingerprints (schema 6 and older: none recorded) resumed with an edited argv:
# refused as for a changed fingerprint, the stored spec text kept (issue 34.1: both measurements under one key)
spec "$TMP/s/pre.ini" ""
sed -i 's/^name = s$/name = pre/' "$TMP/s/pre.ini"
check "a sweep to age" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$TMP/pre.db" "$TMP/s/pre.ini"
q "$TMP/pre.db" "update config set fingerprint = NULL, fingerprint_text = NULL"
spec_before=$(q "$TMP/pre.db" "select spec_text from sweep where name = 'pre'")
spec "$TMP/s/pre.ini" "-mcpu=generic"
sed -i 's/^name = s$/name = pre/' "$TMP/s/pre.ini"
out=$(env PATH="$P22" "$PASSMAP" sweep --quiet --db "$TMP/pre.db" "$TMP/s/pre.ini" 2>&1); rc=$?
[ "$rc" = 2 ] && echo "$out" | grep -q "config m/input=a.ll/opt=0: recorded before config fingerprints, and the spec text changed since (.*-mcpu=generic" \
  && ok "pre-fingerprint store, edited argv: refused, the change shown" || fail "pre-fingerprint resume (rc=$rc): $out"
[ "$(q "$TMP/pre.db" "select spec_text from sweep where name = 'pre'")" = "$spec_before" ] \
  && [ "$(q "$TMP/pre.db" "select count(*) from run")" = 4 ] && ok "its stored spec and runs are as they were" \
  || fail "pre-fingerprint store changed: $(q "$TMP/pre.db" "select count(*) from run") runs"
spec "$TMP/s/pre.ini" ""
sed -i 's/^name = s$/name = pre/' "$TMP/s/pre.ini"
check "the same spec resumes it" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$TMP/pre.db" "$TMP/s/pre.ini"

# --- failed runs: counted as done, retried with --retry-failed ---
mkdir -p "$TMP/f"
cat > "$TMP/f/f.ini" <<INI
[sweep]
name = f
backend = command
repeats = 2

[matrix m]
n = 1, 2

[step sh]
argv = /bin/sh -c "test -e $TMP/f/flag || exit 3; cat '$ROOT/tests/fixtures/mlir/list-single.txt' >&2; echo {n}"
tool = sh
INI
fdb=$TMP/f.db
"$PASSMAP" sweep --quiet --db "$fdb" "$TMP/f/f.ini" >/dev/null 2>&1
[ "$(q "$fdb" "select count(*) from run where status='failed'")" = 4 ] && ok "4 failed runs" || fail "failed runs"
touch "$TMP/f/flag"
out=$("$PASSMAP" sweep --quiet --db "$fdb" "$TMP/f/f.ini" 2>&1)
echo "$out" | grep -q "4 failed runs of 2 configs count as done (--retry-failed runs them again)" \
  && echo "$out" | grep -q "0 ran" && ok "resume: failed runs count as done, said once" || fail "resume: $out"
out=$("$PASSMAP" sweep --quiet --retry-failed --db "$fdb" "$TMP/f/f.ini" 2>&1)
echo "$out" | grep -q "retry-failed: 4 failed runs moved to sweep 'f~superseded-" && echo "$out" | grep -q "4 ran: 4 ok" \
  && ok "--retry-failed reruns them" || fail "--retry-failed: $out"
[ "$(q "$fdb" "select count(*) || ':' || count(distinct c.key || '/' || r.repeat) || ':' || sum(r.status = 'ok') from run r
             join config c on c.id=r.config_id join sweep w on w.id=c.sweep_id where w.name='f'")" = "4:4:4" ] \
  && ok "the study holds repeats 0 and 1 of each config, ok" || fail "retried runs: $(q "$fdb" "select r.status, r.repeat from run r")"
[ "$(q "$fdb" "select count(*) from run r join config c on c.id=r.config_id join sweep w on w.id=c.sweep_id where w.superseded_by='f' and r.status='failed'")" = 4 ] \
  && ok "the failed runs are kept aside" || fail "failed runs kept"

# --- merge: shards of two llc builds ---
spec "$TMP/s/s.ini" ""
check "shard 1/2 with llc-22" env PATH="$P22" "$PASSMAP" sweep --quiet --shard 1/2 --db "$TMP/a.db" "$TMP/s/s.ini"
check "shard 2/2 with llc-14" env PATH="$P14" "$PASSMAP" sweep --quiet --shard 2/2 --db "$TMP/b.db" "$TMP/s/s.ini"
check "merge shard 1 (--partial: shard 2 comes next)" "$PASSMAP" merge --partial "$TMP/out.db" "$TMP/a.db"
out=$("$PASSMAP" merge "$TMP/out.db" "$TMP/b.db" 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "refused: sweep 's' ran another build of llc: xxh3-128:.* (.*LLVM version 14.*) in $TMP/b.db, $h22 (.*LLVM version 22.*) in $TMP/out.db" \
  && ok "merge refuses a shard of another llc build (same name, same --version family)" || fail "merge refusal (rc=$rc): $out"
[ "$(q "$TMP/out.db" "select count(*) from run")" = 2 ] && ok "nothing of the refused shard merged" || fail "refused merge wrote"
out=$("$PASSMAP" merge --force "$TMP/out.db" "$TMP/b.db" 2>&1); rc=$?
[ "$rc" = 0 ] && [ "$(q "$TMP/out.db" "select forced || ':' || (note like '%another build of llc%') from merge_log order by id desc limit 1")" = "1:1" ] \
  && ok "merge --force: merged and recorded" || fail "merge --force (rc=$rc): $out"
out=$("$PASSMAP" report "$TMP/out.db")
echo "$out" | grep -q "more than one build of a tool" && echo "$out" | grep -q "warning: tool llc: 2 builds ran" \
  && ! echo "$out" | grep -q "same CPU, cores, kernel and compiler build" \
  && ok "the report names both builds and never says same build" || fail "report of the forced merge: $out"
# one llc binary on another CPU (a cluster of mixed CPUs): its --version's "Host CPU:" line differs, the build not
check "shard 2/2 with llc-22 on 'another CPU'" env PATH="$P22" "$PASSMAP" sweep --quiet --shard 2/2 --db "$TMP/cpu.db" "$TMP/s/s.ini"
q "$TMP/cpu.db" "update tool set version_text = replace(version_text, 'Host CPU: ', 'Host CPU: other-') where name = 'llc'"
out=$("$PASSMAP" merge --partial "$TMP/cpu-out.db" "$TMP/a.db" 2>&1 && "$PASSMAP" merge "$TMP/cpu-out.db" "$TMP/cpu.db" 2>&1); rc=$?
[ "$rc" = 0 ] && echo "$out" | grep -q "merged 2 runs.*llc: one build (same hash and version) on other machines; their lines 'Host CPU: other-.*' .*ignored" \
  && ok "merge: the same llc build on another CPU is one build; the host line shown, ignored" || fail "mixed CPUs merge (rc=$rc): $out"
out=$("$PASSMAP" report "$TMP/cpu-out.db")
! echo "$out" | grep -q "builds ran" && ok "the report does not claim two builds of one binary" || fail "report of mixed CPUs: $out"
# the same config measured by both builds: never one config, not even with --force
# (shard 1/2 again: the same plan as a.db's, so the merge's coverage check lets it through to the config check)
check "shard 1/2 with llc-14 elsewhere" env PATH="$P14" "$PASSMAP" sweep --quiet --shard 1/2 --db "$TMP/c.db" "$TMP/s/s.ini"
out=$("$PASSMAP" merge --force --partial "$TMP/a2.db" "$TMP/a.db" 2>&1 && "$PASSMAP" merge --force --partial "$TMP/a2.db" "$TMP/c.db" 2>&1); rc=$?
[ "$rc" = 1 ] && echo "$out" | grep -q "config m/input=a.ll/opt=.: other steps than in .*not even with --force" \
  && ok "merge --force refuses to mix one config's two measurements" || fail "config mix (rc=$rc): $out"

# --- report, show and trace default to the study, not STUDY-fix beside it ---
cat > "$TMP/s/fix.ini" <<INI
[sweep]
name = s-fix
backend = command
repeats = 2

[matrix x]
input = a.ll
variant = stock, nounwind

[step llc]
argv = llc -O1 {input} -o {out}/a.s -time-passes
tool = llc
INI
db=$TMP/d.db
check "a study" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/s.ini"
check "a STUDY-fix sweep in the study's store" env PATH="$P22" "$PASSMAP" sweep --quiet --db "$db" "$TMP/s/fix.ini"
"$PASSMAP" report "$db" | head -1 | grep -q "^sweep s (command)" && ok "report defaults to the study" || fail "report default"
"$PASSMAP" show "$db" | grep -q "m/input=a.ll/opt=2" && ok "show defaults to the study" || fail "show default"
check "trace defaults to the study" "$PASSMAP" trace "$db" --config m/input=a.ll/opt=2 -o "$TMP/t.json"
"$PASSMAP" report "$db" --sweep s-fix --json --allow-contended > "$TMP/fix.json"
python3 - "$TMP/fix.json" <<'PY' && ok "the fix sweep's A/B reads the variant against stock" || fail "fix sweep A/B direction"
import json, sys
ab = json.load(open(sys.argv[1]))["ab"]["comparisons"]
assert ab and ab[0]["variant"] == "nounwind" and ab[0]["against"] == "stock", ab
PY
finish
