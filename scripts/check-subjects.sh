#!/usr/bin/env bash
# check-subjects.sh [BASE]: every commit after BASE (default: the commit in scripts/subject-base) has a subject of
# 72 characters at most (merges included; git's own default merge subjects are short). The commits before the
# base were written before the rule. A commit that landed too long, once others had merged it (its history can no
# longer be rewritten), is reworded in scripts/subject-fixes ("HASH SUBJECT", the full hash): the checker reads
# that subject instead, which must fit too. Exit 0: all fit; 1: one or more do not (listed); 3: not checked (no
# git history, or BASE not in this clone). CHECK_SUBJECTS_ROOT: the repository (tests plant a scratch one).
set -u
root=${CHECK_SUBJECTS_ROOT:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
base=${1:-$(sed -n 's/^\([0-9a-f]\{7,40\}\).*/\1/p' scripts/subject-base 2>/dev/null | head -1)}
git rev-parse --git-dir > /dev/null 2>&1 || { echo "check-subjects: $root is not a git checkout: not checked"; exit 3; }
[ -n "$base" ] && git rev-parse --verify -q "$base^{commit}" > /dev/null \
  || { echo "check-subjects: base ${base:-(none)} is not in this clone: not checked"; exit 3; }
export LC_ALL=C.UTF-8   # ${#s} counts characters, not bytes (a subject may hold "≤")
declare -A fixed=()
while read -r h rest; do
  [ -n "$h" ] && [ "${h:0:1}" != "#" ] && fixed[$h]=$rest
done < <(cat scripts/subject-fixes 2>/dev/null)
bad=0
while IFS= read -r line; do
  full=${line%% *} line=${line#* }
  hash=${line%% *} subject=${line#* }
  [ -n "${fixed[$full]+set}" ] && subject=${fixed[$full]}
  if [ "${#subject}" -gt 72 ]; then
    echo "commit $hash: subject of ${#subject} characters (72 at most: say the rest in the body): ${subject:0:60}..."
    bad=1
  fi
done < <(git log --format='%H %h %s' "$base..HEAD")
exit $bad
