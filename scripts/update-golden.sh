#!/usr/bin/env bash
# update-golden.sh [BIN]: rewrites tests/golden/ from BIN (default build/passmap), for a commit that changes an
# output on purpose: run it, read `git diff --stat tests/golden` (and zdiff a file against HEAD's to see the
# change), commit the new files with the change. tests/e2e/test_golden.sh compares against them in make test.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-$root/build/passmap}
[ -x "$bin" ] || { echo "update-golden.sh: $bin: no passmap binary (make all first)" >&2; exit 2; }
command -v gnuplot > /dev/null || { echo "update-golden.sh: gnuplot is needed for the figures and HTML" >&2; exit 2; }
new=$(mktemp -d "${TMPDIR:-/tmp}/passmap-golden-new.XXXXXX")
trap 'rm -rf "$new"' EXIT
"$root/scripts/golden-outputs.sh" "$bin" "$new"
mkdir -p "$root/tests/golden"
rm -f "$root"/tests/golden/*.gz
for f in "$new"/*; do
  gzip -9n < "$f" > "$root/tests/golden/$(basename "$f").gz"   # -n: no name or time stamp, so equal bytes
done
echo "tests/golden: $(ls "$root"/tests/golden/*.gz | wc -l) files from $bin"
