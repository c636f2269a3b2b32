#!/usr/bin/env bash
# passmap cache never restores wrong or missing files and a broken cache never breaks the build:
# inferred outputs, header dependencies, inputs changed during the compile, stale outputs, an entry replaced
# by a directory, a read-only and a full cache file system, outputs that are devices, FIFOs or symlinks.
source "$(dirname "$0")/lib.sh"
export PASSMAP_CACHE_DIR=$TMP/cache
unset PASSMAP_CACHE_DEBUG
P=$PASSMAP
stat_of() { "$P" cache stats --json | jq -r ".$1"; }
expect_eq() { # DESC GOT WANT
  if [ "$2" = "$3" ]; then ok "$1"; else fail "$1 (got '$2', want '$3')"; fi
}
key_of() { # CMD...: the key of a cache exec (runs it)
  PASSMAP_CACHE_DEBUG=1 "$P" cache exec "$@" 2>&1 >/dev/null | sed -n 's/.* key \([0-9a-f]*\) wall.*/\1/p'
}
mounts=()
cleanup_mounts() { for m in "${mounts[@]}"; do umount "$m" 2>/dev/null; done; }
trap 'cleanup_mounts; rm -rf "$TMP"' EXIT
can_mount() { [ "$(id -u)" = 0 ] && mkdir -p "$TMP/probe" && mount -t tmpfs -o size=64k tmpfs "$TMP/probe" 2>/dev/null \
  && umount "$TMP/probe"; }

mkdir -p "$TMP/w" && cd "$TMP/w"
printf 'int triple(int x) { return 3 * x; }\n' > x.c
gcc -c x.c -o ref.o

# --- the README's own usage: outputs inferred from -o, the output is never an input ---
"$P" cache exec -- gcc -c x.c -o x.o 2>err; expect_eq "gcc -o F without --output exits 0" $? 0
expect_eq "it is stored (output inferred)" "$(stat_of stores)" 1
rm -f x.o
"$P" cache exec -- gcc -c x.c -o x.o; expect_eq "hit exits 0" $? 0
expect_eq "it hits" "$(stat_of hits)" 1
check "the hit wrote the inferred output" cmp x.o ref.o
echo junk > x.o
"$P" cache exec -- gcc -c x.c -o x.o
expect_eq "an existing output is not hashed as an input (still a hit)" "$(stat_of hits)" 2
check "and it is overwritten" cmp x.o ref.o
for form in "-o x2.o" "-ox2.o" "--output x2.o" "--output=x2.o"; do
  rm -f x2.o; "$P" cache clear
  "$P" cache exec -- gcc -c x.c $form; rm -f x2.o
  "$P" cache exec -- gcc -c x.c $form
  [ "$(stat_of hits)" = 1 ] && cmp -s x2.o ref.o && ok "gcc $form inferred" || fail "gcc $form inferred"
done
"$LLVM_BIN/mlir-translate" --mlir-to-llvmir /dev/stdin -o m.ll <<'EOF'
llvm.func @f(%a: i32) -> i32 {
  %m = llvm.mul %a, %a : i32
  llvm.return %m : i32
}
EOF
"$LLVM_BIN/llc" m.ll -o ref.s
for form in "-o m.s" "-o=m.s" "--o=m.s"; do
  rm -f m.s; "$P" cache clear
  "$P" cache exec -- "$LLVM_BIN/llc" m.ll $form; rm -f m.s
  "$P" cache exec -- "$LLVM_BIN/llc" m.ll $form
  [ "$(stat_of hits)" = 1 ] && cmp -s m.s ref.s && ok "llc $form inferred" || fail "llc $form inferred"
done

# --- no declared or inferred output: runs uncached, one warning line, CMD's status ---
"$P" cache clear
"$P" cache exec -- sh -c 'echo hi; exit 3' >out 2>err; rc=$?
expect_eq "no output: CMD's exit status" $rc 3
expect_eq "no output: stdout passed through" "$(cat out)" hi
expect_eq "no output: one warning line" "$(grep -c 'not cached' err)/$(wc -l < err)" "1/1"
"$P" cache exec -- gcc -c x.c 2>err; expect_eq "gcc -c without -o exits 0" $? 0
grep -q 'not cached' err && ok "gcc -c without -o: warned" || fail "gcc -c without -o: warned ($(cat err))"
expect_eq "nothing stored without an output" "$(stat_of stores)/$(stat_of entries)" "0/0"

# --- a hit produces every output the miss produced (user -MD -MF) ---
"$P" cache exec -- gcc -MD -MF x.d -c x.c -o x.o; cp x.d ref.d; rm -f x.o x.d
"$P" cache exec -- gcc -MD -MF x.d -c x.c -o x.o
[ -f x.o ] && [ -f x.d ] && cmp -s x.d ref.d && ok "hit restores the object and the -MF file" \
  || fail "hit restores the object and the -MF file"

"$P" cache exec -- gcc -MD -MF a.d -c x.c -o a.o; "$P" cache exec -- gcc -MD -MF b.d -c x.c -o b.o
grep -q '^b.o:' b.d && ok "the -MF file names this run's target, not an earlier run's" || { fail "-MF target"; cat b.d; }

# --- headers: a changed #include is a miss, explain says which ---
"$P" cache clear
printf '#define K 3\n' > h.h
printf '#include "h.h"\nint k(void) { return K; }\n' > y.c
# written in the tick the run starts, an input is too new to trust and nothing is stored: make them older
touch -d '-5 seconds' h.h y.c
"$P" cache exec -- gcc -c y.c -o y.o
printf '#define K 4\n' > h.h
gcc -c y.c -o y_ref.o
"$P" cache explain -- gcc -c y.c -o y.o > ex
grep -q '^would miss' ex && ok "explain: header change would miss" || { fail "explain: header change would miss"; cat ex; }
grep -q 'h.h' ex && ok "explain names the header" || { fail "explain names the header"; cat ex; }
rm -f y.o; "$P" cache exec -- gcc -c y.c -o y.o
check "header change recompiles (not the stale object)" cmp y.o y_ref.o
rm -f y.o; "$P" cache exec -- gcc -c y.c -o y.o
expect_eq "then it hits" "$(stat_of hits)" 1
check "with the new header's object" cmp y.o y_ref.o

# --- an input changed during the compile is not stored under the old content's key ---
"$P" cache clear
echo old > in.txt; touch flip
"$P" cache exec -i in.txt -o out.txt -- sh -c '[ -e flip ] && echo new > in.txt; cat in.txt > out.txt' 2>err
expect_eq "input changed during the run: not stored" "$(stat_of stores)" 0
grep -q 'changed during' err && ok "warned: input changed" || fail "warned: input changed ($(cat err))"
rm flip out.txt; echo old > in.txt
"$P" cache exec -i in.txt -o out.txt -- sh -c '[ -e flip ] && echo new > in.txt; cat in.txt > out.txt'
expect_eq "the old input gets its own output" "$(cat out.txt)" old

# --- stale outputs: exit 0 without writing the output is not cached ---
echo stale > s.txt
"$P" cache exec -o s.txt -- true 2>err; expect_eq "exit 0 without writing: status 0" $? 0
grep -q 'not cached' err && ok "warned: output not written" || fail "warned: output not written ($(cat err))"
expect_eq "the file that was there is left as it was (it may be the user's own)" "$(cat s.txt 2>&1)" stale
echo mine > f.txt
"$P" cache exec -o f.txt -- sh -c 'exit 4' 2>err; expect_eq "a failed miss: CMD's status" $? 4
expect_eq "a failed miss leaves the output that was there" "$(cat f.txt 2>&1)" mine
"$P" cache exec -o f.txt -- sh -c 'echo new > f.txt' 2>err
expect_eq "a miss that writes the output replaces it" "$(cat f.txt 2>&1)" new
expect_eq "no copy is left beside an output" "$(ls -A | grep -c passmap-prev)" 0
# passmap killed between setting the output aside and putting it back: the copy is there, the next miss puts it back
echo mine > k.txt
"$P" cache exec -o k.txt -- sleep 30 2>err & pid=$!
for _ in $(seq 100); do ls .k.txt.passmap-prev."$pid".* >/dev/null 2>&1 && break; sleep 0.1; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
[ ! -e k.txt ] && [ "$(cat .k.txt.passmap-prev."$pid".* 2>&1)" = mine ] && ok "killed during a miss: the output was set aside, not deleted" \
  || fail "killed during a miss: $(ls -A | grep k.txt | tr '\n' ' ')"
"$P" cache exec -o k.txt -- true 2>err
expect_eq "the next miss of that output puts the copy back" "$(cat k.txt 2>&1)" mine
grep -q "put back" err && ok "and says so" || fail "put back notice: $(cat err)"
expect_eq "no copy left after it" "$(ls -A | grep -c passmap-prev)" 0
rm -f s.txt; "$P" cache exec -o s.txt -- true 2>/dev/null
[ ! -e s.txt ] && ok "no stale output restored" || fail "no stale output restored ($(cat s.txt))"

# --- an entry replaced by a directory: runs, then `clear` removes it ---
"$P" cache clear
key=$(key_of -- gcc -c x.c -o x.o)
entry=$PASSMAP_CACHE_DIR/${key:0:2}/${key:2}.entry
rm -f "$entry"; mkdir -p "$entry/sub"; echo j > "$entry/sub/f"
rm -f x.o; "$P" cache exec -- gcc -c x.c -o x.o 2>err; expect_eq "entry is a directory: exit 0" $? 0
check "entry is a directory: object built" cmp x.o ref.o
rm -f x.o; "$P" cache exec -- gcc -c x.c -o x.o
check "entry is a directory: next run still right" cmp x.o ref.o
mkdir -p "$PASSMAP_CACHE_DIR/ab/cdef.entry/d" "$PASSMAP_CACHE_DIR/tmp/junkdir"
"$P" cache clear; expect_eq "clear exits 0 on junk" $? 0
left=$(find "$PASSMAP_CACHE_DIR" -mindepth 1 -not -path "$PASSMAP_CACHE_DIR/manifests" -not -path "$PASSMAP_CACHE_DIR/tmp" \
  -not -name stats -not -name compilers | wc -l)
expect_eq "clear removes junk directories" "$left" 0

# --- byte counts stay exact after a truncated entry is dropped ---
key=$(key_of -- gcc -c x.c -o x.o)
entry=$PASSMAP_CACHE_DIR/${key:0:2}/${key:2}.entry
truncate -s $(( $(stat -c %s "$entry") / 2 )) "$entry"
rm -f x.o; "$P" cache exec -- gcc -c x.c -o x.o
ondisk=$(find "$PASSMAP_CACHE_DIR" -name '*.entry' -printf '%s\n' | awk '{s+=$1} END {print s+0}')
expect_eq "bytes equal the entry files after a truncated entry" "$(stat_of bytes)" "$ondisk"

# --- outputs that are not regular files: written in place or through, never replaced ---
echo data > in2.txt
"$P" cache exec -i in2.txt -o o.txt -- sh -c 'cat in2.txt > o.txt'
if [ "$(id -u)" = 0 ]; then
  rm o.txt; mknod o.txt c 1 3
  "$P" cache exec -i in2.txt -o o.txt -- sh -c 'cat in2.txt > o.txt' 2>err; rc=$?
  [ -c o.txt ] && ok "a hit onto a device node keeps the device (rc $rc)" || fail "a hit onto a device node keeps the device"
  rm o.txt
else
  ok "# SKIP device node needs root"
fi
rm -f o.txt; mkfifo o.txt
timeout 10 cat o.txt > fifo_got & reader=$!
timeout 10 "$P" cache exec -i in2.txt -o o.txt -- sh -c 'cat in2.txt > o.txt'; wait $reader
[ -p o.txt ] && ok "a hit onto a FIFO keeps the FIFO" || fail "a hit onto a FIFO keeps the FIFO"
expect_eq "and the reader got the bytes" "$(cat fifo_got)" data
rm -f o.txt real.txt; ln -s real.txt o.txt
"$P" cache exec -i in2.txt -o o.txt -- sh -c 'cat in2.txt > o.txt'
[ -L o.txt ] && [ "$(cat real.txt 2>/dev/null)" = data ] && ok "a hit onto a symlink writes through" \
  || fail "a hit onto a symlink writes through"
rm -f o.txt real.txt

# --- cache directory unusable (a file): runs uncached, warns once, CMD's status ---
touch notadir
rm -f x.o; PASSMAP_CACHE_DIR=$TMP/w/notadir "$P" cache exec -- gcc -c x.c -o x.o 2>err; rc=$?
expect_eq "cache dir is a file: exit 0" $rc 0
check "cache dir is a file: object built" cmp x.o ref.o
expect_eq "cache dir is a file: one warning line" "$(wc -l < err)" 1
printf 'int broken(' > bad.c
PASSMAP_CACHE_DIR=$TMP/w/notadir "$P" cache exec -- gcc -c bad.c -o bad.o 2>/dev/null
expect_eq "cache dir is a file: compiler's failure status" $? 1

# --- read-only cache: a hit still hits, a miss still builds ---
if can_mount || [ "$(id -u)" != 0 ]; then
  export PASSMAP_CACHE_DIR=$TMP/ro
  mkdir -p "$PASSMAP_CACHE_DIR"
  "$P" cache exec -- gcc -c x.c -o x.o
  if [ "$(id -u)" = 0 ]; then # root ignores permissions: a read-only bind mount
    mount --bind "$PASSMAP_CACHE_DIR" "$PASSMAP_CACHE_DIR" && mounts+=("$PASSMAP_CACHE_DIR") \
      && mount -o remount,bind,ro "$PASSMAP_CACHE_DIR"
  else
    chmod -R a-w "$PASSMAP_CACHE_DIR"
  fi
  rm -f x.o; "$P" cache exec -- gcc -c x.c -o x.o 2>err; rc=$?
  expect_eq "read-only cache: hit exits 0" $rc 0
  check "read-only cache: hit restored the object" cmp x.o ref.o
  printf 'int other(void) { return 1; }\n' > z.c; gcc -c z.c -o z_ref.o
  "$P" cache exec -- gcc -c z.c -o z.o 2>err; rc=$?
  expect_eq "read-only cache: miss exits 0" $rc 0
  check "read-only cache: miss built the object" cmp z.o z_ref.o
  expect_eq "read-only cache: one warning line" "$(grep -c 'warning' err)" 1
  "$P" cache exec -- gcc -c bad.c -o bad.o 2>/dev/null
  expect_eq "read-only cache: compiler's failure status" $? 1
  if [ "$(id -u)" = 0 ]; then umount "$PASSMAP_CACHE_DIR"; else chmod -R u+w "$PASSMAP_CACHE_DIR"; fi
else
  ok "# SKIP read-only cache needs root and mount"
fi

# --- full cache file system: a good compile stays good, no leak (sanitizer build) ---
if can_mount; then
  export PASSMAP_CACHE_DIR=$TMP/full/cache
  mkdir -p "$TMP/full" && mount -t tmpfs -o size=256k tmpfs "$TMP/full" && mounts+=("$TMP/full")
  mkdir -p "$PASSMAP_CACHE_DIR"; "$P" cache stats >/dev/null
  dd if=/dev/zero of="$TMP/full/fill" bs=4k 2>/dev/null
  rm -f x.o; "$P" cache exec -- gcc -c x.c -o x.o 2>err; rc=$?
  expect_eq "full disk: exit 0" $rc 0
  check "full disk: object built" cmp x.o ref.o
  expect_eq "full disk: one warning line" "$(wc -l < err)" 1
  "$P" cache exec -- gcc -c bad.c -o bad.o 2>/dev/null
  expect_eq "full disk: compiler's failure status" $? 1
  rm -f "$TMP/full/fill"
  umount "$TMP/full"
else
  ok "# SKIP full disk needs root and mount"
fi
# --- run --stdout onto a device node of our own: written in place, the node stays ---
if [ "$(id -u)" = 0 ]; then
  mknod "$TMP/w/devnode" c 1 3
  "$P" run --stdout "$TMP/w/devnode" -- echo hi >/dev/null 2>&1
  [ -c "$TMP/w/devnode" ] && ok "run --stdout onto a device keeps the device" || fail "run --stdout onto a device keeps the device"
else
  ok "# SKIP device node needs root"
fi

# --- every temp-file-and-rename write goes through the one helper that refuses non-regular targets ---
renames=$(grep -rn --include='*.c' 'rename(' "$ROOT/lib" "$ROOT/src" | grep -v "$ROOT/lib/base/util.c" \
  | grep -v 'only ever over a regular file' | grep -v 'a folder of the run.s own, never over a user.s file' || true)
[ -z "$renames" ] && ok "no rename(2) outside pm_util_publish (and the guarded entry publish)" \
  || { fail "rename(2) outside pm_util_publish"; echo "$renames"; }
"$P" cache exec -- gcc -Wp,-MD,wp.d -c x.c -o x.o 2>err
grep -q 'not cached' err && ok "-Wp,-MD writes a file passmap does not infer: uncached" || fail "-Wp,-MD: $(cat err)"

# --- tests never hand a device to a tool as an output file (tools may write through temp-file-and-rename) ---
hits=$(grep -rnE --include='*.sh' --include='*.c' --include='*.py' \
  -- '(-o|--output|--stdout|--stderr|--export|-MF)[= ]+"?/dev/(null|full|zero)' "$ROOT/tests" "$ROOT/bench" \
  | grep -v 'test_cache_safe.sh' | grep -v 'lint: passmap itself, the device write under test' || true)
[ -z "$hits" ] && ok "no test writes an output to a real device" || { fail "no test writes an output to a real device"; echo "$hits"; }
finish
