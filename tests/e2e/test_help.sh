#!/usr/bin/env bash
# Every subcommand's --help has one shape (usage, options, -h/--help, exit status), a man page, and a line
# in passmap(1); a mistyped subcommand gets a "did you mean" (issue 23); the lists of formats and back ends the help
# computes from their tables agree with the docs (issue 22).
source "$(dirname "$0")/lib.sh"
# passmap --help lists the main commands (at most 12; the back end's internal helper never) and says how to see
# all; `passmap help --all` lists every command, each under its category (src/cli/main.c's table)
main_cmds=$("$PASSMAP" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
cmds=$("$PASSMAP" help --all | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
n_main=$(echo "$main_cmds" | wc -l)
[ "$n_main" -le 12 ] && echo "$main_cmds" | grep -qx gate && ! echo "$main_cmds" | grep -qx ov-compile \
  && "$PASSMAP" --help | grep -q 'passmap help --all' && ok "passmap --help lists $n_main main commands, gate among them" \
  || fail "passmap --help: $(echo $main_cmds)"
[ "$(echo "$cmds" | wc -l)" -ge 19 ] && echo "$cmds" | grep -qx ov-compile && echo "$cmds" | grep -qx merge \
  && [ "$("$PASSMAP" --help --all)" = "$("$PASSMAP" help --all)" ] && ok "passmap help --all lists every command" \
  || fail "help --all: $(echo $cmds)"
# a back end's options (a heading row naming the back end) are listed after --backend NAME, else in one line
# saying how; the man page has them all
h=$("$PASSMAP" run --help); hb=$("$PASSMAP" run --backend openvino --help)
! echo "$h" | grep -q -- '^  --model ' && echo "$h" | grep -qx 'The openvino back end.s options: passmap run --backend openvino --help' \
  && echo "$hb" | grep -q -- '^  --model X.xml ' && grep -q 'model X.xml' "$ROOT/man/passmap-run.1" \
  && ! "$PASSMAP" sweep --help | grep -q -- '^  --device ' && "$PASSMAP" sweep --backend openvino --help | grep -q -- '^  --device ' \
  && ok "run and sweep --help: the openvino back end's options after --backend openvino; all in the man page" \
  || fail "back-end options in --help: $(echo "$h" | tail -5)"
d=$("$PASSMAP" doctor --help); db=$("$PASSMAP" doctor --backend openvino --help)
! echo "$d" | grep -q -- '^  --lib ' && echo "$d" | grep -qx 'The openvino back end.s options: passmap doctor --backend openvino --help' \
  && echo "$db" | grep -q -- '^  --lib PATH ' && echo "$db" | grep -q -- '^  --timeout DUR ' && grep -q 'llm.-model F' "$ROOT/man/passmap-doctor.1" \
  && ok "doctor --help: the openvino row's doctor options after --backend openvino; all in the man page" \
  || fail "doctor's back-end options in --help: $(echo "$d" | tail -5)"
# the main commands' help lists at most 130 options (issue 39; -h, --help not counted): a back end's own options
# wait behind --backend NAME, old spellings are hidden aliases
n_opts=0
for c in $main_cmds; do
  n=$("$PASSMAP" "$c" --help | sed -n '/^options:$/,/^  -h, --help/p' | grep -cE '^  (-[a-zA-Z], )?--[a-z]')
  n_opts=$((n_opts + n - 1))
done
[ "$n_opts" -le 130 ] && ok "the main commands' help lists $n_opts options (at most 130)" \
  || fail "the main commands' help lists $n_opts options (more than 130)"
# modes are declared as modes (git's OPT_CMDMODE): two in one command line are an error naming both
out=$("$PASSMAP" sweep --status --dry-run x.ini 2>&1); rc=$?
[ $rc = 2 ] && [ "$(echo "$out" | head -1)" = "passmap sweep: --status and --dry-run are two modes: give one" ] \
  && [ "$(echo "$out" | tail -1)" = "try 'passmap sweep --help'" ] && ok "sweep --status and --dry-run: one mode at a time" \
  || fail "sweep modes: rc=$rc $out"
"$PASSMAP" help --bogus >/dev/null 2>&1; [ $? = 2 ] && ok "passmap help with a stray word: bad usage" \
  || fail "help --bogus was taken"
for c in $cmds; do
  out=$("$PASSMAP" "$c" --help 2>&1); rc=$?
  short=$("$PASSMAP" "$c" -h 2>&1)
  if [ $rc = 0 ] && [[ "$(echo "$out" | head -1)" == "usage: passmap $c"* ]] && echo "$out" | grep -q '^  -h, --help ' \
     && echo "$out" | grep -q '^exit status: .*0 .*2 bad usage' && echo "$out" | grep -q "^more: man passmap-$c$" \
     && [ "$out" = "$short" ]; then
    ok "$c --help: usage, options, -h/--help, exit status"
  else
    fail "$c --help (rc=$rc): $(echo "$out" | head -2) ... $(echo "$out" | tail -3)"
  fi
done
# the help comes from the option table the parser reads (src/cli/cli_opts.h): an "options:" list whose every
# option the parser takes, and one answer to an unknown option
for c in $cmds; do
  out=$("$PASSMAP" "$c" --help 2>&1)
  echo "$out" | grep -qx 'options:' && ok "$c --help: an options: list" || fail "$c --help has no options: list"
  bad=""
  args=("$c"); [ "$c" = gen ] && args+=(llm)
  # each listed option (with a value when it takes one), then an unknown one: the parser stops at the unknown
  # one before doing any work, and names the listed one only if it does not know it
  while IFS= read -r line; do
    [[ "$line" =~ ^\ \ (-[a-zA-Z],\ )?(--[a-z][a-z-]*)(\ [^\ ]+)?(\ \ |$) ]] || continue
    o=${BASH_REMATCH[2]}; [ "$o" = --help ] && continue
    [ -n "${BASH_REMATCH[3]}" ] && a="$o=1" || a=$o
    e=$("$PASSMAP" "${args[@]}" "$a" --no-such-option 2>&1 </dev/null)
    echo "$e" | grep -qE "(unrecognized|unknown or incomplete) option '$o[=']" && bad+=" $o"
  done < <(echo "$out" | sed -n '/^options:$/,/^  -h, --help/p')
  [ -z "$bad" ] && ok "$c: every option its help lists is one its parser takes" || fail "$c: listed, not parsed:$bad"
  e=$("$PASSMAP" "${args[@]}" --no-such-option 2>&1 </dev/null); rc=$?
  [ $rc = 2 ] && [ "$(echo "$e" | tail -1)" = "try 'passmap $c --help'" ] && ok "$c: an unknown option ends with one hint" \
    || fail "$c --no-such-option (rc=$rc): $e"
done
# a man page per subcommand, passmap(1) naming each, passmap-spec(5); generated pages in step with --help
for c in $cmds; do
  [ -s "$ROOT/man/passmap-$c.1" ] && ok "man page passmap-$c(1)" || fail "no man/passmap-$c.1"
  grep -q "^\.B $(echo "$c" | sed 's/-/\\\\-/g')\$" "$ROOT/man/passmap.1" && ok "passmap(1) lists $c" || fail "passmap(1) lacks $c"
done
[ -s "$ROOT/man/passmap-spec.5" ] && ok "passmap-spec(5)" || fail "no passmap-spec.5"
out=$(python3 "$ROOT/scripts/help2man.py" "$PASSMAP" "$ROOT/man" --check 2>&1) && ok "generated man pages match --help" \
  || fail "man pages out of date: $out"
# the lists the help computes from the tables (cli_opt.list) are the docs' lists: the formats of docs/reference.md's
# "Timing reports parsed" table and the back ends of docs/spec.md's `backend =` line (README.md lists neither: it
# points to those pages). A row added without its doc line fails here.
opt_list() { # CMD OPTION PREFIX: the names after PREFIX in --OPTION's help (wrapped lines joined), one a line, sorted
  "$PASSMAP" "$1" --help | python3 -c '
import re, sys
opt, prefix = sys.argv[1], sys.argv[2]
lines = sys.stdin.read().splitlines()
i = next(k for k, l in enumerate(lines) if re.match(r"  (-\w, )?--%s " % opt, l))
text = lines[i][22:]
for l in lines[i + 1:]:
    if not l.startswith(" " * 22):
        break
    text += " " + l.strip()
assert text.startswith(prefix), text
print("\n".join(sorted(n.strip() for n in text[len(prefix):].split(" (default")[0].split(", "))))' "$2" "$3"
}
fmts_help=$(opt_list parse format "")
fmts_doc=$(sed -n '/^### Timing reports parsed/,/^$/p' "$ROOT/docs/reference.md" | sed -n 's/^| \(`[^|]*\) |.*/\1/p' \
  | grep -o '`[a-z-]*`' | tr -d '`' | sort)
[ -n "$fmts_help" ] && [ "$fmts_help" = "$fmts_doc" ] && ok "parse --help's formats are docs/reference.md's table's" \
  || fail "formats: help [$(echo $fmts_help)] doc [$(echo $fmts_doc)]"
[ "$(opt_list import format "")" = "$fmts_help" ] && [ "$(opt_list run format "report parser: ")" = "$fmts_help" ] \
  && ok "import and run --help list the same formats" || fail "import/run formats: $(opt_list import format "")"
bes_help=$(opt_list sweep backend "override the spec's back end: ")
bes_doc=$(sed -n 's/^backend = [a-z]* *; *\([a-z |]*\).*/\1/p' "$ROOT/docs/spec.md" | head -1 | tr '|' '\n' | tr -d ' ' | grep . | sort)
[ -n "$bes_help" ] && [ "$bes_help" = "$bes_doc" ] && ok "sweep --help's back ends are docs/spec.md's" \
  || fail "back ends: help [$(echo $bes_help)] doc [$(echo $bes_doc)]"
if command -v man >/dev/null 2>&1; then
  bad=""
  for f in "$ROOT"/man/*.[15]; do
    w=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$f" 2>&1 >/dev/null)
    [ -n "$w" ] && bad+=" $(basename "$f"): $w"
  done
  [ -z "$bad" ] && ok "every man page renders without warnings" || fail "man warnings:$bad"
fi
dest=$TMP/dest
if make -s -C "$ROOT" --no-print-directory install PREFIX=/opt/pm DESTDIR="$dest" INSTALL_BIN="$PASSMAP" >"$TMP/log" 2>&1; then
  n1=$(ls "$dest/opt/pm/share/man/man1" | wc -l)
  [ "$n1" -ge 16 ] && [ -s "$dest/opt/pm/share/man/man5/passmap-spec.5" ] && ok "make install: $n1 man1 pages and passmap-spec(5)" \
    || fail "installed man pages: $n1"
  for d in README.md json.md architecture.md; do
    [ -s "$dest/opt/pm/share/doc/passmap/$d" ] && ok "make install: doc $d" || fail "doc $d not installed"
  done
else
  fail "make install: $(tail -3 "$TMP/log")"
fi

out=$("$PASSMAP" reprot 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "passmap: 'reprot' is not a command; did you mean 'report'? (passmap --help lists them)" ] \
  && ok "did you mean, for a mistyped subcommand" || fail "typo: rc=$rc $out"
out=$("$PASSMAP" frobnicate 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "^passmap: 'frobnicate' is not a command$" && echo "$out" | grep -q '^commands:' \
  && ok "no guess for a word close to nothing: the list" || fail "no guess: $out"
finish
