#!/usr/bin/env bash
# passmap run --backend openvino: N cold ov-compile children, each in its own folder, through the stand-in
# libopenvino_c; relative paths keep their meaning; compile and import seconds summarised.
source "$(dirname "$0")/lib.sh"
LIB=$PASSMAP_BUILD/tests/libopenvino_c.so
cd "$TMP" || exit 1
printf '<?xml version="1.0"?>\n<net name="m" version="11"/>\n' > m.xml
out=$("$PASSMAP" run -n 3 --json --backend openvino --model m.xml --window 512 --ov-lib "$LIB" --schedule-trace --run-dir runs)
rc=$?
[ $rc = 0 ] && ok "3 openvino runs succeed" || fail "openvino runs rc=$rc: $out"
echo "$out" | python3 -c '
import json,sys
d=json.load(sys.stdin); s=d["summary"]
assert s["ok"]==3, s
assert s["ov_compile_s"]["n"]==3 and s["ov_compile_s"]["mean"]>0, s
assert s["ov_import_s"]["n"]==3, s
assert d["command"][1]=="ov-compile" and "--window" in d["command"], d["command"]
' && ok "summary has compile and import seconds" || fail "json summary: $out"
for i in 1 2 3; do
  [ -f runs/$i/compileTimeScheduleTrace.json ] && [ -f runs/$i/model.blob ] || { fail "run $i folder lacks trace/blob"; continue; }
  ok "run $i wrote its trace and blob in its own folder"
done
check_fails "no --model is a usage error" "$PASSMAP" run --backend openvino
check_fails "a CMD with --backend openvino is a usage error" "$PASSMAP" run --backend openvino --model m.xml -- true
check_fails "unknown backend" "$PASSMAP" run --backend tpu -- true
out=$("$PASSMAP" run -n 1 --backend openvino --model m.xml --ov-lib "$TMP/missing.so" --run-dir r2 --stderr err.txt); rc=$?
[ $rc = 1 ] && grep -q "missing.so" err.txt && ok "missing library: run fails, stderr names it" || fail "missing lib rc=$rc"
finish
