#!/usr/bin/env bash
# check-format.sh [--fix] [BASE]: the C lines added or changed since BASE, committed or not, formatted as
# .clang-format says (clang-format-14 --lines on each file's new lines). BASE defaults to the commit in
# scripts/format-base: the code base is not rewritten to the format, only what is written after it is held to it.
# Lines git sees as moved (a function moved to another file, re-indented or not) are not new: a split of a file
# is not a reformatting. --fix formats the lines in place. Exit 0: formatted; 1: not (the changes it wants are
# printed; the spaces before a trailing /* */ comment are not weighed: the house writes three, clang-format
# one); 3: not checked (no clang-format-14, no git history, or BASE not in this clone).
# --accept records HEAD as the base (scripts/format-base): the lines merged so far are accepted as they are.
# CHECK_FORMAT_ROOT: the tree to check (tests/e2e/test_format.sh plants a scratch one).
set -u
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
root=${CHECK_FORMAT_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
if [ "${1:-}" = --accept ]; then
  git rev-parse HEAD > scripts/format-base && echo "check-format: base now $(cat scripts/format-base)"
  exit $?
fi
base=${1:-$(sed -n 's/^\([0-9a-f]\{7,40\}\).*/\1/p' scripts/format-base 2>/dev/null | head -1)}
cf=$(command -v clang-format-14 || command -v clang-format) \
  || { echo "check-format: clang-format-14 is not installed: not checked"; exit 3; }
git rev-parse --git-dir > /dev/null 2>&1 || { echo "check-format: $root is not a git checkout: not checked"; exit 3; }
[ -n "$base" ] || { echo "check-format: no base commit (scripts/format-base): not checked"; exit 3; }
git rev-parse --verify -q "$base^{commit}" > /dev/null \
  || { echo "check-format: base $base is not in this clone (a shallow one?): not checked"; exit 3; }
# The diff in colour, moved lines in their own colour (cyan), so they can be told from new ones (green).
git -c color.diff.new=green -c color.diff.newMoved=cyan -c color.diff.newMovedAlternative=cyan \
    diff -U0 --diff-algorithm=histogram --color=always --color-moved=zebra --color-moved-ws=allow-indentation-change --no-ext-diff "$base" \
    -- 'lib/*.c' 'lib/*.h' 'src/*.c' 'src/*.h' 'tests/unit/*.c' 'tests/support/*.c' 'tests/support/*.h' 'fuzz/*.c' \
  | python3 -c '
import difflib, re, subprocess, sys
cf, fix, base = sys.argv[1], sys.argv[2] == "1", sys.argv[3]
ansi = re.compile(r"\x1b\[[0-9;]*m")
trail = re.compile(r"(?<=\S)[ \t]+/\*")
new_lines, path, line = {}, None, 0
for raw in sys.stdin.buffer.read().decode("utf-8", "replace").split("\n"):
    plain = ansi.sub("", raw)
    if plain.startswith("+++ "):
        path = plain[6:] if plain.startswith("+++ b/") else None
    elif plain.startswith("@@ "):
        m = re.match(r"@@ -\S+ \+(\d+)", plain)
        line = int(m.group(1)) if m else 0
    elif plain.startswith("+") and path:
        if not raw.startswith("\x1b[36m"):   # new, not moved
            new_lines.setdefault(path, []).append(line)
        line += 1
bad = 0
for path, lines in sorted(new_lines.items()):
    ranges, start, prev = [], lines[0], lines[0]
    for n in lines[1:] + [None]:
        if n is not None and n == prev + 1:
            prev = n
            continue
        ranges.append("--lines=%d:%d" % (start, prev))
        if n is not None:
            start = prev = n
    src = open(path, encoding="utf-8").read()
    out = subprocess.run([cf, "--style=file"] + ranges + [path], capture_output=True, text=True, check=True).stdout
    # the spaces before a trailing /* */ comment are left to the writer (clang-format-14 allows one only)
    if trail.sub(" /*", out) == trail.sub(" /*", src):
        continue
    if fix:
        open(path, "w", encoding="utf-8").write(out)
        print("check-format: formatted the new lines of " + path)
        continue
    bad = 1
    sys.stdout.writelines(difflib.unified_diff(src.splitlines(True), out.splitlines(True), path, path + " (formatted)"))
if bad:
    print("check-format: the lines above, added or changed since " + base + ", are not formatted as .clang-format")
    print("  says: scripts/check-format.sh --fix formats them (a table: wrap it in /* clang-format off */ ... on)")
sys.exit(bad)
' "$cf" "$fix" "$base"
