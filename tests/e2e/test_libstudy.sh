#!/usr/bin/env bash
# The report half links alone (issue 22; docs/architecture.md, "Layers"): make libstudy archives the layers
# before the back ends (STUDY_LAYERS), and a report writer compiled with only their headers on its include path
# links against every object of libstudy.a (--whole-archive: an object that reached a back end, the cache, the
# sweep or passmap fix would be an undefined symbol) with sqlite3, jansson, gsl and xxhash, without zstd. It
# writes the report of a real sweep's store, and its JSON is passmap report's but for the fix words (the plan
# comes from passmap fix, which libstudy leaves out) and the fits' note: this store predates recorded fit-size
# rules, and with no back end to ask (pm_an_opts.fit_sizes_of unset) the study takes them by tool name, and says so.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
BUILD=$(dirname "$PASSMAP")
LIB=$BUILD/libstudy.a
if [ ! -f "$LIB" ]; then
  fail "no $LIB: make libstudy (make check builds it)"; finish; exit
fi
ok "make libstudy built $LIB"
members=$(ar t "$LIB")
echo "$members" | grep -qx 'analysis.o' && echo "$members" | grep -qx 'html.o' && echo "$members" | grep -qx 'store.o' \
  && echo "$members" | grep -qx 'parse.o' && ok "it holds the store, parse, study and output objects" \
  || fail "libstudy.a members: $(echo $members)"
other=$(echo "$members" | grep -xE 'backend\.o|spec\.o|sweep\.o|shard\.o|single_run\.o|cache.*\.o|fix\.o|fixplan\.o')
[ -z "$other" ] && ok "and none of the back ends, cache, sweep or fix" || fail "measuring half in libstudy.a: $other"

cat > "$TMP/report_only.c" <<'C'
/* A report writer on libstudy alone: passmap report without the fix plan. */
#include <stdio.h>
#include <stdlib.h>
#include "analysis.h"
#include "figures.h"
#include "fix_report.h"
#include "report.h"
#include "stagemap.h"
#include "store_runs.h"

static int add_ledger(pm_analysis *a, const char *db_path, int allow_contended, void *user, pm_err *err)
{
    (void)allow_contended, (void)user;
    return pm_fix_report_load(db_path, a->sweep, &a->fixes.proven_json, err);
}

int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    pm_err err = {0};
    sqlite3 *db = NULL;
    pm_analysis *a = NULL;
    pm_figures figs = {0};
    pm_stagemap *map = pm_stagemap_new();
    const pm_report_format *fmt = pm_report_format_find(argv[2]);
    int rc = map && fmt ? PM_OK : PM_ERR_USAGE;
    if (!rc)
        rc = pm_store_open_sqlite_readonly(argv[1], &db, &err);
    if (!rc)
        rc = pm_stagemap_load_default(map, &err);
    /* the whole study in one call: the sections, the A/B and between builds (from the store's path), then this
     * writer's own addition, the proven-fix ledger (passmap report adds the proposed fixes too) */
    pm_an_opts o = {.map = map, .db_path = argv[1], .add_fixes = add_ledger};
    if (!rc)
        rc = pm_study_run(db, &o, &a, &err);
    pm_report_ctx x = {.a = a, .figs = &figs, .db = db, .map = map, .db_label = argv[1], .width = 200};
    if (!rc)
        rc = fmt->write(&x, stdout, &err);
    if (rc)
        fprintf(stderr, "report_only: %s\n", err.msg);
    pm_figures_free(&figs);
    pm_analysis_free(a);
    pm_stagemap_free(map);
    if (db)
        sqlite3_close(db);
    return rc ? 1 : 0;
}
C
study=$(sed -n 's/^STUDY_LAYERS *:= *//p' "$ROOT/Makefile")
inc=$(for l in $study; do printf -- "-I%s/lib/%s " "$ROOT" "$l"; done)
# a sanitizer build's objects need its runtime
san=""; nm -u "$LIB" 2>&1 | grep -q __asan_ && san="-fsanitize=address,undefined"
# shellcheck disable=SC2086
check "a report writer links against all of libstudy.a, without zstd" \
  cc -std=c11 -D_GNU_SOURCE -Wall -Wextra -Werror $san $inc $(pkg-config --cflags sqlite3 jansson gsl libxxhash) \
     -o "$TMP/report_only" "$TMP/report_only.c" -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive \
     $(pkg-config --libs sqlite3 jansson gsl libxxhash) -ldl -lm -lpthread

DB=$TMP/e2e.db
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 "$DB"
"$TMP/report_only" "$DB" json > "$TMP/lib.json" 2> "$TMP/lib.err"
rc=$?
[ $rc = 0 ] && ok "it writes the store's report" || { fail "report_only: rc=$rc $(cat "$TMP/lib.err")"; finish; exit; }
"$PASSMAP" report --json "$DB" > "$TMP/cli.json" 2>&1
check "its JSON is passmap report's but for the fix words and the fits' note" python3 -c '
import json, sys
lib, cli = (json.load(open(p)) for p in sys.argv[1:3])
assert cli.get("top_fix"), "passmap report proposed no fix: the comparison would prove nothing"
assert "its back end today" in cli["fits_x_note"] and "picked by tool name" in lib["fits_x_note"], (cli["fits_x_note"], lib["fits_x_note"])
for d in (lib, cli):
    d.pop("top_fix", None)
    d.pop("top_fix_why", None)
    d.pop("fits_x_note", None)
    d["headline"] = [h for h in d.get("headline", []) if h.get("label") not in ("top fix", "why")]
    for f in d.get("fixes", []):
        f.pop("fix", None)
bad = [k for k in cli if lib.get(k) != cli[k]] + [k for k in lib if k not in cli]
assert not bad, bad' "$TMP/lib.json" "$TMP/cli.json"
"$TMP/report_only" "$DB" text > "$TMP/lib.txt" 2>&1
grep -q '^sweep e2e (embedded): 16 configs, 48 ok runs' "$TMP/lib.txt" && ok "and its text report" \
  || fail "text: $(head -3 "$TMP/lib.txt")"
finish
