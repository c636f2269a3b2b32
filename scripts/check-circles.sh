#!/usr/bin/env bash
# No two files of one folder call each other (a circle hides which of them is the lower part). Reads the defined
# and undefined symbols of the built objects (nm), so it sees calls through any header.
# Usage: scripts/check-circles.sh BUILD_DIR     exit 1 and one line per circle when there is one.
# A circle not yet broken is allowed by a line "circle A.c+B.c 1" in scripts/check-project.allow (A < B); an
# allowance whose circle is gone is an error, like the project checker's.
set -euo pipefail
build=${1:?usage: check-circles.sh BUILD_DIR}
allow_file=$(cd "$(dirname "$0")" && pwd)/check-project.allow
allowed=$(awk '$1 == "circle" {print $2}' "$allow_file" 2>/dev/null | tr '\n' ' ')
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$build"
# only objects whose source is still there: a file moved away leaves its old object in the build directory
objs=$(for o in lib/*/*.o lib/*/*/*.o src/cli/*.o; do if [ -f "$root/${o%.o}.c" ]; then echo "$o"; fi; done)
[ -n "$objs" ] || { echo "check-circles: no objects under $build: build first" >&2; exit 2; }
# "file def sym" and "file use sym" lines
for o in $objs; do
  nm "$o" | awk -v f="${o%.o}" '$2 ~ /^[TDRB]$/ {print f, "def", $3} $1 == "U" {print f, "use", $2}'
done | awk -v allowed="$allowed" '
  $2 == "def" { owner[$3] = $1; next }
  { use[++n] = $1 " " $3 }
  END {
    for (i = 1; i <= n; i++) {
      split(use[i], u, " "); f = u[1]; o = owner[u[2]]
      if (o == "" || o == f) continue
      df = f; sub(/\/[^\/]*$/, "", df); do_ = o; sub(/\/[^\/]*$/, "", do_)
      if (df != do_) continue
      edge[f " " o] = u[2]
    }
    bad = 0
    na = split(allowed, al, " ")
    for (i = 1; i <= na; i++) ok[al[i]] = 1
    for (e in edge) {
      split(e, p, " ")
      r = p[2] " " p[1]
      if ((r in edge) && p[1] < p[2]) {
        k = p[1] ".c+" p[2] ".c"
        seen[k] = 1
        if (k in ok) continue
        printf "%s.c and %s.c call each other (%s, %s): move the shared part below both\n", p[1], p[2], edge[e], edge[r]
        bad = 1
      }
    }
    for (k in ok) if (!(k in seen)) { printf "%s: allowed as a circle in check-project.allow but none is left: remove the line\n", k; bad = 1 }
    exit bad
  }'
