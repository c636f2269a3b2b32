#!/usr/bin/env bash
# The HTML report read at 1280x800 in headless Chromium (issue 37): the headline box within the first screen, the
# A/B right after it with each row's B/A the ratio of its printed means of the deciding metric, every figure's
# text at least 10 px as rendered and inside its drawing, every figure with its finding in a sentence.
# tests/e2e/report_read.html measures from inside the page.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
if ! command -v chromium >/dev/null 2>&1; then echo "ok # SKIP chromium not installed"; finish; exit 0; fi
DB=$TMP/e2e.db
{ gzip -dc "$ROOT/tests/fixtures/report/e2e-sweep.sql.gz"; echo "PRAGMA user_version = 1; PRAGMA application_id = 1886216560;"; } \
  | sqlite3 "$DB"
page=$TMP/page
mkdir -p "$page"
"$PASSMAP" report "$DB" --html "$page/report.html" --figures "$page/figs" >/dev/null 2>"$TMP/report.err" && ok "report --html" \
  || { fail "report --html: $(cat "$TMP/report.err")"; finish; exit 1; }
cp "$ROOT/tests/e2e/report_read.html" "$page/"
prof=$(mktemp -d "$TMP/chrome.XXXXXX")
dom=$(timeout 180 chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync --hide-scrollbars \
      --user-data-dir="$prof" --allow-file-access-from-files --virtual-time-budget=15000 --window-size=1400,1000 \
      --dump-dom "file://$page/report_read.html" 2>"$TMP/chrome.err")
res=$(echo "$dom" | sed -n '/<pre id="result">/,/# end of checks/p' | sed 's/<pre id="result">//; s/&gt;/>/g')
echo "$res" | grep -q '# end of checks' && ok "chromium: the reading checks ran" || fail "chromium: no result: $(tail -3 "$TMP/chrome.err")"
while IFS= read -r line; do
  case $line in
    "ok - "*) ok "chromium: ${line#ok - }" ;;
    "not ok - "*) fail "chromium: ${line#not ok - }" ;;
  esac
done <<<"$res"
finish
