#!/usr/bin/env bash
# Checks the one rule between lib/'s layers: a file includes headers of its own layer and of earlier
# layers only (order from the Makefile's LAYERS, whose first part is STUDY_LAYERS, the report half that
# make libstudy archives alone: the rule keeps it from reaching the back ends, cache, sweep or fix). A folder
# inside a layer (one per row, e.g. lib/backend/openvino/) is part of that layer.
# Prints one line per violation; exit 1 when there is any.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
study=$(sed -n 's/^STUDY_LAYERS *:= *//p' "$root/Makefile")
layers=$(sed -n 's/^LAYERS *:= *//p' "$root/Makefile" | sed "s/\$(STUDY_LAYERS)/$study/")
declare -A rank=() home=()
i=0; for l in $layers; do rank[$l]=$i; i=$((i + 1)); done
for l in $layers; do
  for h in "$root"/lib/"$l"/*.h "$root"/lib/"$l"/*/*.h; do [ -f "$h" ] && home[$(basename "$h")]=$l; done
done
bad=0
for l in $layers; do
  for f in "$root"/lib/"$l"/*.[ch] "$root"/lib/"$l"/*/*.[ch]; do
    [ -f "$f" ] || continue
    while read -r inc; do
      hl=${home[$inc]:-}
      if [ -z "$hl" ]; then echo "${f#$root/}: includes \"$inc\", which no layer has"; bad=1; continue; fi
      if [ "${rank[$hl]}" -gt "${rank[$l]}" ]; then
        echo "${f#$root/}: layer $l includes \"$inc\" of the later layer $hl"; bad=1
      fi
    done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
  done
done
# Every lib file sits in a layer folder.
for f in "$root"/lib/*.[ch]; do [ -f "$f" ] && { echo "${f#$root/}: not in a layer folder"; bad=1; }; done
for d in "$root"/lib/*/; do
  n=$(basename "$d"); [ -n "${rank[$n]:-}" ] || { echo "lib/$n: folder not in LAYERS"; bad=1; }
done
exit $bad
