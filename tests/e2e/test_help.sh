#!/usr/bin/env bash
# Every subcommand's --help has one shape (usage, options, -h/--help, exit status), a man page, and a line
# in passmap(1); a mistyped subcommand gets a "did you mean" (issue 23).
source "$(dirname "$0")/lib.sh"
cmds=$("$PASSMAP" --help | sed -n 's/^  \([a-z][a-z-]*\)  .*/\1/p')
[ "$(echo "$cmds" | wc -l)" -ge 15 ] && ok "passmap --help lists the subcommands" || fail "subcommands: $cmds"
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
out=$("$PASSMAP" reprot 2>&1); rc=$?
[ $rc = 2 ] && [ "$out" = "passmap: 'reprot' is not a command; did you mean 'report'? (passmap --help lists them)" ] \
  && ok "did you mean, for a mistyped subcommand" || fail "typo: rc=$rc $out"
out=$("$PASSMAP" frobnicate 2>&1); rc=$?
[ $rc = 2 ] && echo "$out" | grep -q "^passmap: 'frobnicate' is not a command$" && echo "$out" | grep -q '^commands:' \
  && ok "no guess for a word close to nothing: the list" || fail "no guess: $out"
finish
