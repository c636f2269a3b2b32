#!/usr/bin/env bash
# Every command and spec block of README.md runs, in order, in a temporary folder, so an example cannot rot
# (issue 23). ```sh blocks run as bash scripts (set -e); the two contract commands `make demo` and `make test`
# are left out (make test runs this test; make demo is the 2.5-minute sweep whose database stands in here: the
# report fixture, a real sweep of the same embedded compiler, as demo-out/demo.db). ```ini blocks are written
# to the file a preceding `<!-- README-test: file NAME -->` names (else spec-K.ini) and must pass
# `passmap sweep --dry-run`; so must every ```ini block of docs/spec.md.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
unset PASSMAP_OPENVINO_LIB
mkdir -p "$TMP/bin" && ln -s "$PASSMAP" "$TMP/bin/passmap"
export PATH="$TMP/bin:$PATH"   # `passmap` is the binary under test (the README's own PATH line is harmless)
W=$TMP/work
mkdir -p "$W/demo-out"
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 "$W/demo-out/demo.db"

# blocks FILE DIR: writes DIR/NNN.sh, DIR/NNN.ini (+ DIR/NNN.name for a named spec) in document order
blocks() {
  awk -v dir="$2" '
    /^<!-- README-test: file [^ ]+ -->$/ { name = $4; next }
    !inb && /^```(sh|ini)$/ { inb = 1; k++; kind = substr($0, 4); f = sprintf("%s/%03d.%s", dir, k, kind);
                              printf "" > f; if (name != "") { print name > (f ".name") } name = ""; next }
    !inb && /^```/ { other = 1; inb = 2; next }
    inb && /^```$/ { inb = 0; next }
    inb == 1 { print >> f }
  ' "$1"
}
mkdir -p "$TMP/readme" "$TMP/spec"
blocks "$ROOT/README.md" "$TMP/readme"
n_sh=$(ls "$TMP/readme"/*.sh 2>/dev/null | wc -l); n_ini=$(ls "$TMP/readme"/*.ini 2>/dev/null | wc -l)
[ "$n_sh" -ge 3 ] && [ "$n_ini" -ge 1 ] && ok "README: $n_sh command blocks, $n_ini spec blocks found" \
  || fail "README blocks: $n_sh sh, $n_ini ini"
k=0
for b in $(ls "$TMP/readme"/*.sh "$TMP/readme"/*.ini | sort); do
  k=$((k + 1))
  case "$b" in
    *.ini)
      name=$(cat "$b.name" 2>/dev/null || echo "spec-$k.ini")
      cp "$b" "$W/$name"
      out=$(cd "$W" && passmap sweep --dry-run "$name" 2>&1) && ok "README spec block $k ($name) parses" \
        || fail "README spec block $k ($name): $(echo "$out" | tail -3)" ;;
    *.sh)
      # the contract commands are not run here (see the header); every other line is
      grep -vE '^\s*make (demo|test)\b' "$b" > "$b.run"
      first=$(grep -vE '^\s*(#|$)' "$b.run" | head -1 | cut -c1-60)
      if [ -z "$first" ]; then ok "README block $k: only the contract commands"; continue; fi
      out=$(cd "$W" && bash -e -o pipefail "$b.run" 2>&1); rc=$?
      [ $rc = 0 ] && ok "README block $k runs: $first ..." || { fail "README block $k (rc=$rc): $first"; echo "$out" | tail -15 | sed 's/^/#   /'; } ;;
  esac
done
# what the blocks promise
[ -s "$W/trace.json" ] && python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["traceEvents"]' "$W/trace.json" \
  && ok "README: trace.json is a Chrome trace" || fail "README: no trace.json"
[ "$(sqlite3 "$W/mine.db" "SELECT count(*) FROM run WHERE status = 'ok'" 2>/dev/null)" = 6 ] \
  && ok "README: the own-compiler study measured its 6 runs" || fail "README: mine.db runs"

# the sample output (```text) is what the report prints for the fixture standing in for the demo
awk '/^```text$/ { t = 1; next } t && /^```$/ { t = 0 } t' "$ROOT/README.md" > "$TMP/sample.txt"
(cd "$W" && passmap report demo-out/demo.db > "$TMP/report.txt" 2>&1)
missing=$(while IFS= read -r l; do grep -qxF -- "$l" "$TMP/report.txt" || echo "$l"; done < "$TMP/sample.txt")
[ -s "$TMP/sample.txt" ] && [ -z "$missing" ] && ok "README: the sample output is the report's own" \
  || fail "README sample lines not in the report: $missing"

# compare opens with the summary line the report's headline opens with (issue 37), the README's first sample line
first_ab=$(sed -n '2p' "$TMP/sample.txt" | sed 's/^  //')
cmp1=$(cd "$W" && passmap compare demo-out/demo.db --a precision=int8 --b precision=fp16 2>/dev/null | head -1)
[ -n "$first_ab" ] && [ "$cmp1" = "$first_ab" ] && ok "README: compare's first line is the headline's summary line" \
  || fail "compare's first line '$cmp1' is not the README's '$first_ab'"

# the README's word "contended" says the rule as the rule's own function words it (passmap compare --explain)
rule=$(passmap compare --explain | sed -n 's/.*the A or B runs were contended (\(.*\)), though tested.*/\1/p')
[ -n "$rule" ] && grep -qF "| contended | runs measured while the machine was busy ($rule)" "$ROOT/README.md" \
  && ok "README: 'contended' in the rule's own words" || fail "README's contended row is not the rule's ($rule)"
for doc in docs/json.md docs/reference.md; do
  grep -qF "$rule" "$ROOT/$doc" && ok "$doc: 'contended' in the rule's own words" || fail "$doc: the contention rule is stale"
done

# docs/spec.md: every spec block parses (its file axes need files)
blocks "$ROOT/docs/spec.md" "$TMP/spec"
mkdir -p "$W/s/src" && printf 'int f(void) { return 1; }\n' > "$W/s/src/a.c"
for b in "$TMP"/spec/*.ini; do
  [ -f "$b" ] || continue
  cp "$b" "$W/s/spec.ini"
  out=$(cd "$W/s" && passmap sweep --dry-run spec.ini 2>&1) && ok "docs/spec.md block $(basename "$b" .ini) parses" \
    || fail "docs/spec.md block $(basename "$b"): $(echo "$out" | tail -2)"
done
finish
