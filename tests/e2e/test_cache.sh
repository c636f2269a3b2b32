#!/usr/bin/env bash
# passmap cache end to end: real gcc -c and llc, hits, misses, other directory, 8 parallel writers,
# corrupted entry on disk, explain, CLI usage.
source "$(dirname "$0")/lib.sh"
export PASSMAP_CACHE_DIR=$TMP/cache
unset PASSMAP_CACHE_DEBUG
P=$PASSMAP
stat_of() { "$P" cache stats --json | jq -r ".$1"; }
expect_eq() { # DESC GOT WANT
  if [ "$2" = "$3" ]; then ok "$1"; else fail "$1 (got '$2', want '$3')"; fi
}

# --- usage ---
check "cache --help exits 0" "$P" cache --help
"$P" cache --help | grep -q "Input rule" && ok "help documents the input rule" || fail "help documents the input rule"
"$P" cache bogus >/dev/null 2>&1; expect_eq "unknown subcommand is a usage error" $? 2
"$P" cache exec >/dev/null 2>&1; expect_eq "exec without CMD is a usage error" $? 2
"$P" cache --max-size 12x stats >/dev/null 2>&1; expect_eq "bad size is a usage error" $? 2
expect_eq "--max-size 5G parsed" "$("$P" cache --max-size 5G stats --json | jq .max_size)" 5368709120

# --- gcc -c: miss, then hit with byte-identical output ---
mkdir -p "$TMP/a" "$TMP/b"
cd "$TMP/a"
printf 'int triple(int x) { return 3 * x; }\nint main(void) { return triple(0); }\n' > x.c
gcc -c x.c -o ref.o
"$P" cache exec -o x.o -- gcc -c x.c -o x.o; expect_eq "gcc miss exits 0" $? 0
expect_eq "miss counted" "$(stat_of misses)/$(stat_of stores)/$(stat_of hits)" "1/1/0"
check "miss output equals a plain compile" cmp x.o ref.o
rm -f x.o
"$P" cache exec -o x.o -- gcc -c x.c -o x.o; expect_eq "gcc hit exits 0" $? 0
expect_eq "hit counted" "$(stat_of hits)" 1
check "restored object byte-identical" cmp x.o ref.o

# same compile from another directory hits
cp x.c "$TMP/b/x.c"
(cd "$TMP/b" && "$P" cache exec -o x.o -- gcc -c x.c -o x.o)
expect_eq "same compile in another directory hits" "$(stat_of hits)" 2
check "other directory got the object" cmp "$TMP/b/x.o" ref.o

# stdout/stderr replay and exit codes
echo data > in.txt
"$P" cache exec -i in.txt -o copy.txt -- sh -c 'echo to-out; echo to-err >&2; cp in.txt copy.txt' >o1 2>e1
rm copy.txt
"$P" cache exec -i in.txt -o copy.txt -- sh -c 'echo to-out; echo to-err >&2; cp in.txt copy.txt' >o2 2>e2
expect_eq "hit replays stdout" "$(cat o2)" "to-out"
expect_eq "hit replays stderr" "$(cat e2)" "to-err"
check "hit restored the declared output" cmp copy.txt in.txt
"$P" cache exec -- sh -c 'exit 7'; expect_eq "miss returns CMD's exit code" $? 7
"$P" cache exec -- sh -c 'exit 7'; expect_eq "a failure is not stored (still 7)" $? 7

# an interrupted miss kills CMD (its own process group) and stores nothing
"$P" cache exec -- sh -c 'echo $$ > child.pid; exec sleep 30' & pm_pid=$!
for _ in $(seq 1 50); do [ -s child.pid ] && break; sleep 0.1; done
kill -TERM "$pm_pid"; wait "$pm_pid"; expect_eq "SIGTERM during a miss exits 143" $? 143
sleep 0.2
kill -0 "$(cat child.pid)" 2>/dev/null && fail "CMD killed with passmap" || ok "CMD killed with passmap"

# --- explain ---
"$P" cache explain -o x.o -- gcc -c x.c -o x.o > ex1
grep -q '^would hit' ex1 && ok "explain: would hit" || { fail "explain: would hit"; cat ex1; }
echo 'int extra;' >> x.c
"$P" cache explain -o x.o -- gcc -O1 -c x.c -o x.o > ex2
grep -qx 'input 0 (x.c) content changed' ex2 && ok "explain: input changed" || { fail "explain: input changed"; cat ex2; }
grep -qx 'argv changed' ex2 && ok "explain: argv changed" || { fail "explain: argv changed"; cat ex2; }
CFLAGS_T=1 "$P" cache explain -e CFLAGS_T -o x.o -- gcc -c x.c -o x.o | grep -qx 'number of env variables changed (0 -> 1)' \
  && ok "explain: env set changed" || fail "explain: env set changed"

# --- llc on a module generated with mlir-translate ---
cat > m.mlir <<'EOF'
llvm.func @f(%a: i32, %b: i32) -> i32 {
  %s = llvm.add %a, %b : i32
  %m = llvm.mul %s, %a : i32
  llvm.return %m : i32
}
EOF
"$LLVM_BIN/mlir-translate" --mlir-to-llvmir m.mlir -o m.ll
"$LLVM_BIN/llc" -O2 m.ll -o ref.s
h0=$(stat_of hits)
"$P" cache exec -o m.s -- "$LLVM_BIN/llc" -O2 m.ll -o m.s
check "llc miss output equals a plain llc" cmp m.s ref.s
rm m.s
"$P" cache exec -o m.s -- "$LLVM_BIN/llc" -O2 m.ll -o m.s
expect_eq "llc hit" "$(stat_of hits)" $((h0 + 1))
check "llc output byte-identical after the hit" cmp m.s ref.s

# --- corrupted entry on disk: rerun, never a wrong restore ---
cd "$TMP/a"
printf 'int triple(int x) { return 3 * x; }\nint main(void) { return triple(0); }\n' > x.c
key=$(PASSMAP_CACHE_DEBUG=1 "$P" cache exec -o x.o -- gcc -c x.c -o x.o 2>&1 | sed -n 's/.*key \([0-9a-f]*\).*/\1/p')
entry=$PASSMAP_CACHE_DIR/${key:0:2}/${key:2}.entry
[ -f "$entry" ] && ok "entry file at DIR/xx/rest.entry" || fail "entry file at DIR/xx/rest.entry ($entry)"
size=$(stat -c %s "$entry")
printf '\xff' | dd of="$entry" bs=1 seek=$((size - 3)) conv=notrunc status=none
c0=$(stat_of corrupt)
"$P" cache verify >/dev/null; expect_eq "verify reports the bad entry" $? 1
rm -f x.o
out=$(PASSMAP_CACHE_DEBUG=1 "$P" cache exec -o x.o -- gcc -c x.c -o x.o 2>&1)
case "$out" in *"miss (corrupt entry)"*) ok "corrupt entry is a miss";; *) fail "corrupt entry is a miss: $out";; esac
expect_eq "corrupt counted" "$(stat_of corrupt)" $((c0 + 1))
check "rerun produced the right object" cmp x.o ref.o
check "entry rewritten and verifies" "$P" cache verify
rm -f x.o
out=$(PASSMAP_CACHE_DEBUG=1 "$P" cache exec -o x.o -- gcc -c x.c -o x.o 2>&1)
case "$out" in *"hit key"*) ok "rewritten entry hits";; *) fail "rewritten entry hits: $out";; esac

# --- 8 parallel writers: same key and different keys, k=2 rounds each ---
check "clear" "$P" cache clear
expect_eq "clear zeroes stats" "$(stat_of hits)/$(stat_of misses)/$(stat_of entries)/$(stat_of bytes)" "0/0/0/0"
mkdir -p "$TMP/par"
cd "$TMP/par"
printf 'int same(int x) { return x + 1; }\n' > same.c
for i in 1 2 3 4 5 6 7 8; do printf 'int diff%d(int x) { return x * %d; }\n' "$i" "$i" > d$i.c; done
writer() { # i
  for round in 1 2; do
    "$P" cache exec -o s$1.o -- gcc -c same.c -o s$1.o || echo "writer $1 same failed" >> errors
    "$P" cache exec -o d$1.o -- gcc -c d$1.c -o d$1.o || echo "writer $1 diff failed" >> errors
  done
}
for i in 1 2 3 4 5 6 7 8; do writer $i & done
wait
[ ! -s errors ] && ok "all parallel writers succeeded" || { fail "parallel writers"; cat errors; }
expect_eq "hits+misses == 8 writers x 2 rounds x 2 commands" $(( $(stat_of hits) + $(stat_of misses) )) 32
expect_eq "9 entries (1 shared key + 8 distinct)" "$(stat_of entries)" 9
ondisk=$(find "$PASSMAP_CACHE_DIR" -name '*.entry' -printf '%s\n' | awk '{s+=$1} END {print s}')
expect_eq "stats bytes equal the entry files' total" "$(stat_of bytes)" "$ondisk"
[ "$(stat_of hits)" -ge 16 ] && ok "every second round hit (>= 16 hits)" || fail "hits $(stat_of hits) < 16"
expect_eq "every entry verifies" "$("$P" cache verify --json | jq -c .)" '{"ok":9,"bad":0}'
gcc -c same.c -o same_ref.o
allsame=1
for i in 1 2 3 4 5 6 7 8; do cmp -s s$i.o same_ref.o || allsame=0; done
expect_eq "every parallel same-key output is correct" $allsame 1
leftover=$(find "$PASSMAP_CACHE_DIR" -name '.pmtmp.*' | wc -l)
expect_eq "no temp files left" "$leftover" 0

# --- eviction through the CLI ---
printf 'int z;\n' > z.c
"$P" cache --max-size 1 exec -o z.o -- gcc -c z.c -o z.o
expect_eq "entries beyond --max-size are evicted" "$(stat_of entries)/$(stat_of bytes)" "0/0"
expect_eq "10 evictions counted (9 old + the new one)" "$(stat_of evicted)" 10

# a cache folder whose path does not fit is refused naming the limit (it was cut, and the cut folder created)
msg=$(PASSMAP_CACHE_DIR="$TMP/$(printf 'c%.0s' $(seq 1 4100))" "$P" cache stats 2>&1 >/dev/null)
case "$msg" in *"cache directory path longer than 4095 bytes"*) ok "long cache folder: error names the limit" ;;
  *) fail "long cache folder: ${msg:0:200}" ;; esac
finish
