#!/usr/bin/env bash
# The project checker (scripts/check-project.sh): the tree passes, and each rule catches a violation planted in
# a copy of the tree (lib/ layering, banned functions, extern in a .c file, SQL outside lib/store, a process
# started outside lib/run, a back-end name compared outside its row, an over-long function or file).
. "$(dirname "$0")/lib.sh"
check "lib/ layers have one-way dependencies" "$ROOT/scripts/check-layers.sh"
check "the project checker passes on the tree" "$ROOT/scripts/check-project.sh"

fresh_copy() {
  rm -rf "$TMP/tree"; mkdir -p "$TMP/tree/scripts" "$TMP/tree/src"
  cp "$ROOT/Makefile" "$TMP/tree/"
  cp "$ROOT/scripts/check-layers.sh" "$ROOT/scripts/check-project.sh" "$ROOT/scripts/check-project.allow" \
     "$ROOT/scripts/check-subjects.sh" "$TMP/tree/scripts/"
  cp -r "$ROOT/lib" "$TMP/tree/lib"; cp -r "$ROOT/src/cli" "$TMP/tree/src/cli"
}
fresh_copy
check "the copied tree passes" "$TMP/tree/scripts/check-project.sh"

# Each violation is planted in the one copy, checked, and the file put back.
with_planted() { # file, text, command...: appends text to the copy's file, runs the command, restores the file
  local file=$TMP/tree/$1 text=$2; shift 2
  cp "$file" "$TMP/saved"
  printf '%s\n' "$text" >> "$file"
  "$@"; local rc=$?
  cp "$TMP/saved" "$file"
  return $rc
}
check_fails "a base file including a sweep header is caught" \
  with_planted lib/base/util.c '#include "sweep.h"' "$TMP/tree/scripts/check-layers.sh"
check_fails "... and by the project checker" \
  with_planted lib/base/util.c '#include "sweep.h"' "$TMP/tree/scripts/check-project.sh"

plant() { # description, file, C text appended
  check_fails "$1" with_planted "$2" "$3" "$TMP/tree/scripts/check-project.sh"
  with_planted "$2" "$3" "$TMP/tree/scripts/check-project.sh" > "$TMP/out" 2>&1
  check "  ... naming the file" grep -q "^$2" "$TMP/out"
}
plant "strcpy is caught" lib/base/util.c 'static void planted(char *d, const char *s) { strcpy(d, s); }'
plant "sprintf is caught" lib/output/table.c 'static void planted(char *d) { sprintf(d, "x"); }'
plant "strtok is caught" lib/parse/parse.c 'static char *planted(char *d) { return strtok(d, ","); }'
plant "extern in a .c file is caught" lib/study/analysis.c 'extern int planted_symbol;'
plant "SQL outside lib/store is caught" lib/study/analysis.c 'static void planted(sqlite3 *db) { sqlite3_exec(db, "x", 0, 0, 0); }'
# No SQL is allowed outside lib/store any more, so the allowance a count is checked against is planted too.
cp "$TMP/tree/scripts/check-project.allow" "$TMP/allow.saved"
echo "sql lib/study/analysis.c 1" >> "$TMP/tree/scripts/check-project.allow"
check "an SQL statement within a file's allowance passes" with_planted lib/study/analysis.c \
  'static void planted(sqlite3 *db, sqlite3_stmt **s) { sqlite3_prepare_v2(db, "x", -1, s, 0); }' \
  "$TMP/tree/scripts/check-project.sh"
plant "one more SQL statement in an allowed file is caught" lib/study/analysis.c \
  $'static void planted(sqlite3 *db, sqlite3_stmt **s) { sqlite3_prepare_v2(db, "x", -1, s, 0); }\nstatic void planted2(sqlite3 *db) { sqlite3_exec(db, "y", 0, 0, 0); }'
cp "$TMP/allow.saved" "$TMP/tree/scripts/check-project.allow"
plant "a fork outside lib/run is caught" lib/output/figures.c 'static int planted(void) { return fork(); }'
plant "popen outside lib/run is caught" src/cli/cmd_show.c 'static void planted(void) { popen("x", "r"); }'
plant "a back-end name compared outside its row is caught" lib/sweep/sweep.c 'static int planted(const char *b) { return !strcmp(b, "openvino"); }'
plant "a kind name compared outside lib/workload is caught" lib/study/analysis.c 'static int planted(const char *k) { return !strcmp(k, "llm"); }'
long_fn=$(printf 'static int planted_long(void)\n{\n'; for i in $(seq 1 160); do echo "    (void)0;"; done; printf '    return 0;\n}\n')
plant "a function over the limit is caught" lib/base/stats.c "$long_fn"

# A length allowance for a function that is no longer long (split, or moved to another file) is stale: an error.
cp "$TMP/tree/scripts/check-project.allow" "$TMP/allow.saved"
echo "length lib/base/stats.c:pm_stats_mean 1" >> "$TMP/tree/scripts/check-project.allow"
check_fails "a stale length allowance is caught" "$TMP/tree/scripts/check-project.sh"
"$TMP/tree/scripts/check-project.sh" > "$TMP/out" 2>&1
check "  ... naming the function" grep -q "pm_stats_mean: allowed to be long" "$TMP/out"
cp "$TMP/allow.saved" "$TMP/tree/scripts/check-project.allow"

# The limit is 120 lines; a signature over two lines is named by its first line.
fn125=$(printf 'static int planted_over(int a,\n                        int b)\n{\n'; for i in $(seq 1 123); do echo "    (void)0;"; done; printf '    return a + b;\n}\n')
plant "a function of 125 lines is caught" lib/base/stats.c "$fn125"
with_planted lib/base/stats.c "$fn125" "$TMP/tree/scripts/check-project.sh" > "$TMP/out" 2>&1
check "  ... naming the function" grep -q "function planted_over is 125 lines" "$TMP/out"
# Files: 800 lines at most in lib/ and src/, a file allowance holds one over it, a stale one is an error.
stats_lines=$(wc -l < "$TMP/tree/lib/base/stats.c")
filler=$(for i in $(seq "$stats_lines" 800); do echo "/* planted line $i */"; done)
plant "a file over 800 lines is caught" lib/base/stats.c "$filler"
cp "$TMP/tree/scripts/check-project.allow" "$TMP/allow.saved"
echo "file lib/base/stats.c 1" >> "$TMP/tree/scripts/check-project.allow"
check "a file within its allowance passes" with_planted lib/base/stats.c "$filler" "$TMP/tree/scripts/check-project.sh"
check_fails "a stale file allowance is caught" "$TMP/tree/scripts/check-project.sh"
"$TMP/tree/scripts/check-project.sh" > "$TMP/out" 2>&1
check "  ... naming the file" grep -q "lib/base/stats.c: allowed over 800 lines" "$TMP/out"
cp "$TMP/allow.saved" "$TMP/tree/scripts/check-project.allow"

# Circles between two files of one folder, on built objects: the tree's (only its allowed ones), then a planted one.
BUILD_DIR=${PASSMAP_BUILD:-$ROOT/build}
check "no circle between two files of one folder but the allowed ones" "$ROOT/scripts/check-circles.sh" "$BUILD_DIR"
mkdir -p "$TMP/objs/lib/x" "$TMP/circ/scripts" "$TMP/circ/lib/x"
cp "$ROOT/scripts/check-circles.sh" "$TMP/circ/scripts/"; : > "$TMP/circ/scripts/check-project.allow"
src=$TMP/circ/lib/x
printf 'int fb(void);\nint fa(void) { return fb(); }\n' > "$src/a.c"
printf 'int fa(void);\nint fb(void) { return 1; }\nint fc(void) { return fa(); }\n' > "$src/b.c"
cc -c "$src/a.c" -o "$TMP/objs/lib/x/a.o" && cc -c "$src/b.c" -o "$TMP/objs/lib/x/b.o"
check_fails "two files calling each other are caught" "$TMP/circ/scripts/check-circles.sh" "$TMP/objs"
"$TMP/circ/scripts/check-circles.sh" "$TMP/objs" > "$TMP/out" 2>&1
check "  ... naming both and a function each way" grep -q "lib/x/a.c and lib/x/b.c call each other (fb, fa)" "$TMP/out"
mv "$src/b.c" "$TMP/b.c.moved"
check "an object whose source was moved away is not read" "$TMP/circ/scripts/check-circles.sh" "$TMP/objs"
mv "$TMP/b.c.moved" "$src/b.c"
echo "circle lib/x/a.c+lib/x/b.c 1" > "$TMP/circ/scripts/check-project.allow"
check "an allowed circle passes" "$TMP/circ/scripts/check-circles.sh" "$TMP/objs"
rm "$TMP/objs/lib/x/b.o"
check_fails "an allowance whose circle is gone is caught" "$TMP/circ/scripts/check-circles.sh" "$TMP/objs"

check "comments and string literals are not flagged" with_planted lib/base/util.c \
  "$(printf '/* strcpy(a, b) in a comment and "sprintf(" in a string are no calls */\nstatic const char *planted = "strtok(";')" \
  "$TMP/tree/scripts/check-project.sh"
check "the copy is back to passing" "$TMP/tree/scripts/check-project.sh"
finish
