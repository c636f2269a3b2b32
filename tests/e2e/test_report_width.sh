#!/usr/bin/env bash
# The HTML report in headless Chromium at 1280, 1400 and 1920 px (issue 23): per table, no decisive column
# (config, B/A, mark; regime, fix) beyond the window's right edge; the page using a wide window's width; a
# table's header visible while it scrolls; an icicle tall enough to read, whose click zooms in (passes hidden
# at full view become drawn). tests/e2e/report_width.html measures from inside the page.
# Then read at 1280x800 (issue 37, tests/e2e/report_read.html): the headline box within the first screen, the A/B
# right after it with each row's B/A the ratio of its printed means of the deciding metric, every figure's text
# at least 10 px as rendered and inside its drawing, every figure with its finding in a sentence.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
if ! command -v chromium >/dev/null 2>&1; then echo "ok # SKIP chromium not installed"; finish; exit 0; fi
DB=$TMP/e2e.db
report_fixture "$DB"
page=$TMP/page
mkdir -p "$page"
"$PASSMAP" report "$DB" --html "$page/report.html" --figures "$page/figs" >/dev/null 2>"$TMP/report.err" \
  && ok "report --html" || { fail "report --html: $(cat "$TMP/report.err")"; finish; exit 1; }
cp "$ROOT/tests/e2e/report_width.html" "$ROOT/tests/e2e/report_read.html" "$page/"
chrome_page_checks "$page/report_width.html" "width checks" --virtual-time-budget=15000 --window-size=2000,1000
chrome_page_checks "$page/report_read.html" "reading checks at 1280x800" --virtual-time-budget=15000 --window-size=1400,1000
finish
