#!/usr/bin/env bash
# Regenerates tests/fixtures/report/e2e-sweep.sql.gz: a real `passmap sweep` of tests/fixtures/report/e2e.ini on
# the embedded compiler (about 2 minutes on 2 cores), dumped as SQL. Usage: scripts/make-report-fixture.sh [PASSMAP]
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pm=${1:-$root/build/passmap}
work=$(mktemp -d "${TMPDIR:-/tmp}/pm-fixture.XXXXXX")
trap 'rm -rf "$work"' EXIT
"$pm" sweep --quiet --db "$work/e2e.db" "$root/tests/fixtures/report/e2e.ini"
sqlite3 "$work/e2e.db" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null
sqlite3 "$work/e2e.db" .dump | gzip -9n > "$root/tests/fixtures/report/e2e-sweep.sql.gz"
ls -l "$root/tests/fixtures/report/e2e-sweep.sql.gz"
