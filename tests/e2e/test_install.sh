#!/usr/bin/env bash
# make install PREFIX DESTDIR: binary, data (stage maps, fix rules, presets) and man pages land in place; the
# installed tree, moved elsewhere, still finds its own stage maps (not the source tree's).
source "$(dirname "$0")/lib.sh"
unset PASSMAP_DATA_DIR
dest=$TMP/dest
# INSTALL_BIN: the binary under test (already built); make install would otherwise build the O2 one
if ! make -s -C "$ROOT" --no-print-directory install PREFIX=/opt/pm DESTDIR="$dest" INSTALL_BIN="$PASSMAP" >"$TMP/log" 2>&1; then
  fail "make install"; tail -5 "$TMP/log"; finish; exit 1
fi
ok "make install PREFIX=/opt/pm DESTDIR=..."
for f in bin/passmap share/passmap/stages-embedded.tsv share/passmap/stages-npu.tsv share/passmap/fixes-embedded.tsv \
         share/passmap/studies/demo.ini share/man/man1/passmap.1 share/man/man1/passmap-trace.1 \
         share/man/man1/passmap-show.1 share/man/man1/passmap-report.1; do
  [ -s "$dest/opt/pm/$f" ] && ok "installed $f" || fail "installed $f"
done
if command -v man >/dev/null 2>&1; then
  MANWIDTH=80 man -l "$dest/opt/pm/share/man/man1/passmap-trace.1" 2>/dev/null | grep -q 'Perfetto' \
    && ok "man page renders" || fail "man page renders"
fi
# move the installed tree: the binary looks next to itself, so mark the installed stage map to tell it apart
mv "$dest/opt/pm" "$TMP/moved"
sed -i 's/\tisel\(\t\|$\)/\tisel-installed\1/' "$TMP/moved/share/passmap/stages-embedded.tsv"
"$TMP/moved/bin/passmap" report --help | grep -q "$TMP/moved/share/passmap" && ok "data dir next to the moved binary" \
  || fail "data dir of the moved binary"
DB=$TMP/e2e.db
gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz" | sqlite3 "$DB"
out=$("$TMP/moved/bin/passmap" report "$DB" --json)
echo "$out" | grep -q '"isel-installed"' && ok "moved binary reads its installed stage maps" || fail "installed stage maps not used"
echo "$out" | grep -q '"fix": "' && ok "moved binary reads its installed fix rules" || fail "installed fix rules"
out=$(PASSMAP_DATA_DIR=$ROOT/data "$TMP/moved/bin/passmap" report "$DB" --json)
echo "$out" | grep -q '"isel-installed"' && fail "PASSMAP_DATA_DIR ignored" || ok "PASSMAP_DATA_DIR wins"
finish
