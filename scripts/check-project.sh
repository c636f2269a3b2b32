#!/usr/bin/env bash
# The project checker (run by make test through tests/e2e/test_layers.sh; curl's checksrc is the model): the
# house rules of docs/extending.md that a script can see. One line per violation, exit 1 when there is any.
#   layers   a lib file includes headers of its own and earlier layers only (scripts/check-layers.sh)
#   banned   no strcpy, strcat, sprintf, vsprintf, strtok, strncpy, strncat, gets, gmtime, localtime, ctime,
#            asctime (git's banned.h list): snprintf, memcpy with a checked length, strtok_r, the _r time calls
#   extern   extern declarations only in headers: a .c file never types another file's symbol by hand
#   sql      SQL only in lib/store: no sqlite3_prepare*/sqlite3_exec elsewhere
#   spawn    processes start only in lib/run (the runner: a timeout, its own group, rusage)
#   names    back-end names compared only in their rows' files, kind names only in lib/workload
#   length   no function longer than MAX_FUNCTION_LINES lines
#   file     no file in lib/ or src/ longer than MAX_FILE_LINES lines (split it along the groups it has)
#   subject  commit subjects of 72 characters at most, after scripts/subject-base (scripts/check-subjects.sh;
#            not checked outside a git checkout)
# scripts/check-project.allow lists what is known and not yet moved, each with its count: the checker fails when
# a file exceeds its allowance (a new violation) and says when one can be lowered.
set -u
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root" || exit 2
MAX_FUNCTION_LINES=120
MAX_FILE_LINES=800
allow_file=scripts/check-project.allow
bad=0
declare -A allow=()
if [ -f "$allow_file" ]; then
  while read -r rule what count _; do
    case "$rule" in ''|'#'*) continue;; esac
    allow["$rule $what"]=$count
  done < "$allow_file"
fi

# One awk pass over every file: per line, comments dropped (crudely, line-wise) and, except for the names rule,
# string literals emptied (a gnuplot "sprintf(" inside a string is no call). Prints "HIT rule file line text" and
# "LEN file function lines" for functions over the limit; bash then weighs the hits against the allowances.
scan_all() {
  awk -v max="$MAX_FUNCTION_LINES" '
    FNR == 1 { inc = 0; start = 0; prev = ""; sigline = ""; f = FILENAME
               is_c = f ~ /\.c$/; in_store = f ~ /^lib\/store\//; in_run = f ~ /^lib\/run\//
               own_names = f ~ /^lib\/backend\/(embedded|openvino|command)\// || f ~ /^lib\/workload\// }
    { line = $0
      if (inc) { if (line ~ /\*\//) { sub(/.*\*\//, "", line); inc = 0 } else { prev = $0; next } }
      gsub(/\/\*.*\*\//, "", line)
      if (line ~ /\/\*/) { sub(/\/\*.*/, "", line); inc = 1 }
      sub(/\/\/.*/, "", line)
      raw = line
      gsub(/"([^"\\]|\\.)*"/, "\"\"", line)
      if (line ~ /(^|[^A-Za-z0-9_])(strcpy|strcat|sprintf|vsprintf|strtok|strncpy|strncat|gets|gmtime|localtime|ctime|asctime)[[:space:]]*\(/)
        print "HIT banned " f " " FNR " " $0
      if (is_c && line ~ /^[[:space:]]*extern[[:space:]]/)
        print "HIT extern " f " " FNR " " $0
      if (is_c && !in_store && line ~ /sqlite3_(prepare|prepare_v2|prepare_v3|exec)[[:space:]]*\(/)
        print "HIT sql " f " " FNR " " $0
      if (is_c && !in_run && line ~ /(^|[^A-Za-z0-9_])(fork|vfork|execl|execlp|execle|execv|execvp|execve|execvpe|posix_spawn|posix_spawnp|popen|system)[[:space:]]*\(/)
        print "HIT spawn " f " " FNR " " $0
      if (is_c && !own_names && raw ~ /(strn?cmp|is_matrix_section)[[:space:]]*\([^;]*"(embedded|openvino|command|llm|cnn)"/)
        print "HIT names " f " " FNR " " $0
      if ($0 ~ /^[A-Za-z_].*\(/) sigline = $0   # a signature starts at column 0 (it may go on over lines)
      if (is_c && $0 ~ /^\{/ && prev ~ /\)[[:space:]]*$/) { start = FNR; sig = sigline }
      if (is_c && $0 ~ /^\}/ && start) {
        len = FNR - start
        if (len > max) { n = sig; sub(/\(.*/, "", n); sub(/.*[ *]/, "", n); print "LEN " f " " n " " len }
        start = 0
      }
      prev = $0 }' "$@"
}

"$root/scripts/check-layers.sh" || bad=1
CHECK_SUBJECTS_ROOT=$root "$root/scripts/check-subjects.sh" > "${TMPDIR:-/tmp}/check-subjects.$$" 2>&1
case $? in 0|3) ;; *) cat "${TMPDIR:-/tmp}/check-subjects.$$"; bad=1 ;; esac
rm -f "${TMPDIR:-/tmp}/check-subjects.$$"

mapfile -t files < <(ls lib/*/*.[ch] lib/*/*/*.[ch] src/cli/*.[ch] 2>/dev/null)
declare -A count=() sample=() long=()
while read -r tag a b c rest; do
  if [ "$tag" = HIT ]; then
    count["$a $b"]=$(( ${count["$a $b"]:-0} + 1 ))
    [ -z "${sample["$a $b"]:-}" ] && sample["$a $b"]="$b:$c: $rest"
  elif [ "$tag" = LEN ]; then
    long["length $a:$b"]=1
    if [ -z "${allow["length $a:$b"]:-}" ]; then
      echo "$a: function $b is $c lines (limit $MAX_FUNCTION_LINES: split it)"
      bad=1
    fi
  fi
done < <(scan_all "${files[@]}")

# Files over MAX_FILE_LINES (every .c and .h under lib/ and src/, in any folder depth).
declare -A long_file=()
while read -r n path; do
  [ "$path" = total ] && continue
  [ "$n" -le "$MAX_FILE_LINES" ] && continue
  long_file["file $path"]=1
  if [ -z "${allow["file $path"]:-}" ]; then
    echo "$path: $n lines (limit $MAX_FILE_LINES: split it along the groups it has)"
    bad=1
  fi
done < <(find lib src -name '*.[ch]' -print0 | sort -z | xargs -0 wc -l)

declare -A what=([banned]="banned function (snprintf, strtok_r, the _r time calls)"
                 [extern]="extern declaration in a .c file (declare it in a header)"
                 [sql]="SQL outside lib/store" [spawn]="a process started outside lib/run (use the runner)"
                 [names]="a back-end or kind name compared outside its row")
for k in "${!count[@]}"; do
  rule=${k%% *}; file=${k#* }; n=${count[$k]}; allowed=${allow["$k"]:-0}
  if [ "$n" -gt "$allowed" ]; then
    echo "$file: ${what[$rule]} ($rule: $n, allowed $allowed); first: ${sample[$k]}"
    bad=1
  fi
done
# A stale allowance is an error, length rules included: it would let the next violation in unnoticed.
for k in "${!allow[@]}"; do
  rule=${k%% *}
  [ "$rule" = circle ] && continue   # scripts/check-circles.sh weighs these, on the built objects
  if [ "$rule" = length ]; then
    [ -z "${long[$k]:-}" ] && { echo "${k#* }: allowed to be long in $allow_file but is not (or moved): remove the line"; bad=1; }
    continue
  fi
  if [ "$rule" = file ]; then
    [ -z "${long_file[$k]:-}" ] && { echo "${k#* }: allowed over $MAX_FILE_LINES lines in $allow_file but is not (or moved): remove the line"; bad=1; }
    continue
  fi
  n=${count[$k]:-0}
  [ "$n" -lt "${allow[$k]}" ] && { echo "${k#* }: has $n $rule hits, ${allow[$k]} allowed: lower it in $allow_file"; bad=1; }
done
exit $bad
