#!/usr/bin/env bash
# passmap doctor for every back end (issue 23): the default (embedded) path first (MLIR/LLVM tools and versions,
# a tiny compile, gnuplot, the data folder, the working folder), then OpenVINO as "not installed — needed only
# for backend = openvino", which fails the doctor only when asked for. Exit 0 when the default path works.
source "$(dirname "$0")/lib.sh"
export PASSMAP_DATA_DIR=$ROOT/data
unset PASSMAP_OPENVINO_LIB
LIB=$PASSMAP_BUILD/tests/libopenvino_c.so
cd "$TMP" || exit 1

out=$("$PASSMAP" doctor 2>&1); rc=$?
[ $rc = 0 ] && ok "no OpenVINO, default path works: exit 0" || fail "rc=$rc: $out"
# a meter auto does not pick is no failure of the back end: said "not here:", never FAILED (wall always runs)
if echo "$out" | grep -Eq '^meter [a-z]+: +FAILED'; then fail "a meter line says FAILED: $(echo "$out" | grep '^meter')"
else ok "no meter line says FAILED (one that cannot run here reads 'not here:')"; fi
echo "$out" | grep -q '^MLIR/LLVM tools: .*mlir-opt [0-9][0-9.]*, mlir-translate [0-9][0-9.]*, llc [0-9][0-9.]*' \
  && ok "the embedded tools and their versions" || fail "tools line: $out"
echo "$out" | grep -q '^tiny compile: *3 steps, .* s, [1-9][0-9]* timed passes parsed' && ok "a tiny compile, timing parsed" \
  || fail "tiny compile: $out"
echo "$out" | grep -q '^gnuplot: *[0-9]' && ok "gnuplot and its version" || fail "gnuplot: $out"
echo "$out" | grep -q "^data folder: *$ROOT/data (.* stage rules" && ok "the data folder" || fail "data: $out"
echo "$out" | grep -q "^working folder: *$TMP is writable" && ok "the working folder" || fail "workdir: $out"
echo "$out" | grep -q '^OpenVINO: *not installed — needed only for backend = openvino' && ok "OpenVINO: not installed, not needed" \
  || fail "openvino line: $out"
echo "$out" | grep -q 'NOT FOUND' && fail "NOT FOUND for a default-path user" || ok "no NOT FOUND for a default-path user"

out=$("$PASSMAP" doctor --json 2>/dev/null); rc=$?
[ $rc = 0 ] && echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] and d["openvino"] == "not installed", d
b = d["default_backend"]
assert b["ok"], b
for k in ("tools", "tiny_compile", "gnuplot", "data", "workdir"):
    assert b["checks"][k]["ok"], (k, b)
' && ok "--json: default_backend checks, openvino not installed" || fail "--json rc=$rc: $out"

out=$(PASSMAP_LLVM_BINDIR=$TMP/nowhere "$PASSMAP" doctor 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "^MLIR/LLVM tools: *FAILED: .*$TMP/nowhere" && echo "$out" | grep -q 'default back end is NOT ready' \
  && ok "no MLIR tools: exit 1, the folder named" || fail "no tools rc=$rc: $out"
out=$(PASSMAP_DATA_DIR=$TMP/nodata "$PASSMAP" doctor 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q "^data folder: *FAILED: .*$TMP/nodata" && ok "no data folder: exit 1, named" \
  || fail "no data rc=$rc: $out"
mkdir ro && chmod 555 ro
if [ "$(id -u)" != 0 ]; then
  out=$(cd ro && "$PASSMAP" doctor 2>&1); rc=$?
  [ $rc = 1 ] && echo "$out" | grep -q "^working folder: *FAILED: $TMP/ro is not writable" && ok "read-only working folder: exit 1" \
    || fail "ro rc=$rc: $out"
else
  ok "read-only working folder: skipped as root (# SKIP)"
fi
chmod 755 ro

# with the stand-in OpenVINO (make SAN=1 test-support): both sections, exit 0
if [ -f "$LIB" ]; then
  out=$("$PASSMAP" doctor --lib "$LIB" 2>&1); rc=$?
  [ $rc = 0 ] && echo "$out" | grep -q '^tiny compile: *3 steps' && echo "$out" | grep -q '^OpenVINO: *2026.0.0-standin' \
    && echo "$out" | grep -q '^=> ready' && ok "with OpenVINO: both sections, exit 0" || fail "with lib rc=$rc: $out"
  out=$(PASSMAP_OPENVINO_LIB=$LIB PASSMAP_LLVM_BINDIR=$TMP/nowhere "$PASSMAP" doctor 2>&1); rc=$?
  [ $rc = 1 ] && echo "$out" | grep -q '^OpenVINO: *2026.0.0-standin' && ok "OpenVINO works but the default path does not: exit 1" \
    || fail "rc=$rc: $out"
  out=$("$PASSMAP" doctor --lib "$TMP/missing.so" 2>&1); rc=$?
  [ $rc = 1 ] && echo "$out" | grep -q 'NOT FOUND.*missing.so' && ok "OpenVINO asked for (--lib) and missing: exit 1" \
    || fail "asked rc=$rc: $out"
else
  fail "stand-in library missing: $LIB (make SAN=1 test-support)"
fi
finish
