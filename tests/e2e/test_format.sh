#!/usr/bin/env bash
# The format check (scripts/check-format.sh): the tree's C lines written since scripts/format-base are formatted
# as .clang-format says; in a scratch repository a badly formatted new line fails it, --fix formats it, a moved
# (unformatted, older) function does not, and nothing changed passes. And the commit rule (scripts/check-subjects.sh):
# a subject over 72 characters after scripts/subject-base fails, one before it does not, one reworded to fit in
# scripts/subject-fixes passes.
. "$(dirname "$0")/lib.sh"
if ! command -v clang-format-14 > /dev/null && ! command -v clang-format > /dev/null; then
  echo "ok 1 - # SKIP clang-format-14 is not installed"; _n=1; finish; exit
fi
"$ROOT/scripts/check-format.sh" > "$TMP/tree.out" 2>&1; rc=$?
case $rc in
  0) ok "the tree's new and changed lines are formatted" ;;
  3) echo "ok $((_n + 1)) - # SKIP the tree is not checked here: $(tail -1 "$TMP/tree.out")"; _n=$((_n + 1)) ;;
  *) fail "the tree's new and changed lines are formatted"; head -n 40 "$TMP/tree.out" | sed 's/^/#   /' ;;
esac

repo=$TMP/repo
mkdir -p "$repo/scripts" "$repo/lib/x"
cp "$ROOT/.clang-format" "$repo/"
cp "$ROOT/scripts/check-format.sh" "$repo/scripts/"
g() { git -C "$repo" -c user.name=t -c user.email=t@t -c commit.gpgsign=false "$@" > /dev/null 2>&1; }
cat > "$repo/lib/x/a.c" <<'EOF'
int kept(int a,int b)   { return a+b; }

static int old_style(int count, const int *values)
{
    int total = 0;
    for (int i = 0; i < count; i++) total += values[i];
    if (total > 1000) return   1000;
    return total;
}
EOF
g init -q && g add -A && g commit -qm base
git -C "$repo" rev-parse HEAD > "$repo/scripts/format-base"
g add -A && g commit -qm "format base"
fmt() { CHECK_FORMAT_ROOT=$repo "$repo/scripts/check-format.sh" "$@"; }
check "nothing changed since the base: passes" fmt
printf '\nint added(int a,int b){return a*b;}\n' >> "$repo/lib/x/a.c"
check_fails "a badly formatted new line fails" fmt
fmt > "$TMP/out" 2>&1
check "  ... naming the file" grep -q 'lib/x/a.c' "$TMP/out"
check "  ... and not the older lines around it" sh -c "! grep -q '^-int kept' '$TMP/out'"
check "--fix formats it" fmt --fix
check "  ... then it passes" fmt
check "  ... leaving the older lines as they were" grep -q '^int kept(int a,int b)   { return a+b; }$' "$repo/lib/x/a.c"
g add -A && g commit -qm added
# A split: the unformatted function moves to a file of its own (git sees the lines as moved, not written: a block
# of 20 letters or digits at least, as any function).
python3 - "$repo/lib/x/a.c" "$repo/lib/x/b.c" <<'PY'
import sys
src = open(sys.argv[1]).read()
start = src.index("static int old_style")
end = src.index("}\n", start) + 2
open(sys.argv[1], "w").write(src[:start] + src[end:])
open(sys.argv[2], "w").write(src[start:end])
PY
g add -A
check "a function moved to another file is not new" fmt

subj() { CHECK_SUBJECTS_ROOT=$repo "$repo/scripts/check-subjects.sh" "$@"; }
cp "$ROOT/scripts/check-subjects.sh" "$repo/scripts/"
g commit -qm "$(printf 'old: %0.sx' $(seq 1 80))"   # before the base: written before the rule
git -C "$repo" rev-parse HEAD > "$repo/scripts/subject-base"
g add -A && g commit -qm "subjects: the base"
check "subjects of 72 characters at most after the base pass" subj
g commit --allow-empty -qm "$(printf 'x%.0s' $(seq 1 72))"
check "  ... 72 characters exactly too" subj
g commit --allow-empty -qm "$(printf 'y%.0s' $(seq 1 73))"
check_fails "a subject of 73 characters fails" subj
subj > "$TMP/out" 2>&1
check "  ... naming its commit" grep -q "^commit $(git -C "$repo" rev-parse --short HEAD): subject of 73" "$TMP/out"
# a landed commit cannot be reworded once merged elsewhere: scripts/subject-fixes gives the subject it reads as
echo "$(git -C "$repo" rev-parse HEAD) $(printf 'z%.0s' $(seq 1 73))" > "$repo/scripts/subject-fixes"
check_fails "a rewording that is itself too long fails" subj
echo "$(git -C "$repo" rev-parse HEAD) y: reworded to fit" > "$repo/scripts/subject-fixes"
check "a commit reworded in scripts/subject-fixes passes" subj
finish
