#!/usr/bin/env bash
# passmap doctor against the stand-in libopenvino_c: versions, devices, the decoded compiler version, the tiny
# IR it writes (valid OpenVINO IR: one matmul block), a compile on the NPU and offline, and loud failures.
source "$(dirname "$0")/lib.sh"
LIB=$PASSMAP_BUILD/tests/libopenvino_c.so
[ -f "$LIB" ] || { fail "stand-in library missing: $LIB"; finish; exit 1; }

out=$("$PASSMAP" doctor --lib "$LIB" --keep "$TMP/d1" 2>&1); rc=$?
[ $rc = 0 ] && ok "doctor with an NPU: exit 0" || fail "doctor rc=$rc: $out"
echo "$out" | grep -q '^OpenVINO: *2026.0.0-standin' && ok "OpenVINO version" || fail "version: $out"
echo "$out" | grep -q '^devices: *CPU, GPU, NPU' && ok "devices listed" || fail "devices"
echo "$out" | grep -q '^NPU compiler version: *7.9 (reported 458761 for the core.s default type)' && ok "compiler version decoded" || fail "compiler version"
echo "$out" | grep -q '^compile on the NPU: *ok: .* timing block(s), blob [0-9]* bytes, import' && ok "NPU compile and import" \
  || fail "online compile: $out"
echo "$out" | grep -q '^compile offline (NPU4000): *ok' && ok "offline compile checked too" || fail "offline line"
# The study's own kind of compile: NPUW LLM on a tiny stateful model, with the pins, exported and imported.
echo "$out" | grep -q '^NPUW LLM compile: *ok: .* [5-9] timing block(s), blob [0-9]* bytes, import' \
  && grep -q '"NPUW_LLM":"YES"' "$TMP/d1/llm/ov-compile.stdout" && grep -q '"NPUW_LLM_SHARED_HEAD":"YES"' "$TMP/d1/llm/ov-compile.stdout" \
  && ok "doctor runs the study's NPUW LLM compile with export and import" || fail "llm line: $out"
python3 - "$TMP/d1/passmap-doctor-llm.xml" <<'PY' && ok "the tiny LLM is well-formed stateful IR v11 (inputs, KV states, logits)" || fail "tiny LLM IR"
import os, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
layers = {l.get("id"): l for l in root.iter("layer")}
types = [l.get("type") for l in layers.values()]
assert types.count("ReadValue") == 2 and types.count("Assign") == 2, types
params = [l.get("name") for l in layers.values() if l.get("type") == "Parameter"]
assert params == ["input_ids", "attention_mask", "position_ids", "beam_idx"], params
assert any(p.get("names") == "logits" for p in root.iter("port"))
end = max(int(d.get("offset")) + int(d.get("size")) for d in root.iter("data") if d.get("offset"))
assert end == os.path.getsize(sys.argv[1][:-4] + ".bin"), end
for e in root.iter("edge"):
    src, dst = layers[e.get("from-layer")], layers[e.get("to-layer")]
    outs = [p.get("id") for p in src.iter("port") if src.find("output") is not None and p in list(src.find("output"))]
    ins = [p.get("id") for p in dst.find("input")]
    assert e.get("from-port") in outs and e.get("to-port") in ins, (e.attrib)
PY
# A model NPUW cannot take as an LLM: the compile the study uses fails, so the doctor does.
out=$("$PASSMAP" doctor --lib "$LIB" --llm-model "$TMP/d1/passmap-doctor.xml" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q '^NPUW LLM compile: *FAILED.*KV-cache states' && echo "$out" | grep -q 'NOT ready: the NPUW LLM compile' \
  && ok "a failing NPUW LLM compile fails the doctor" || fail "llm fail rc=$rc: $out"
python3 - "$TMP/d1/passmap-doctor.xml" <<'PY' && ok "the tiny model is well-formed IR v11 with one MatMul and a matching .bin" || fail "tiny IR"
import os, sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == "net" and root.get("version") == "11"
types = [l.get("type") for l in root.iter("layer")]
assert types.count("MatMul") == 1 and "Parameter" in types and "Result" in types, types
end = max(int(d.get("offset")) + int(d.get("size")) for d in root.iter("data") if d.get("offset"))
assert end == os.path.getsize(sys.argv[1][:-4] + ".bin"), end
ids = {l.get("id") for l in root.iter("layer")}
for e in root.iter("edge"):
    assert e.get("from-layer") in ids and e.get("to-layer") in ids
PY

# A Meteor Lake (3720) machine: the offline line compiles for the device's own platform, with no executor.
out=$(PASSMAP_FAKEOV_ARCH=3720 "$PASSMAP" doctor --lib "$LIB" --keep "$TMP/d3" 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q '^compile offline (NPU3720): *ok' \
  && grep -q '"NPU_CREATE_EXECUTOR":"0"' "$TMP/d3/offline/ov-compile.stdout" \
  && ok "doctor offline on an NPU: the device's platform, NPU_CREATE_EXECUTOR=0" || fail "offline on 3720 rc=$rc: $out"

# --keep with a relative folder (the fixture README's capture command): the children run elsewhere.
out=$(cd "$TMP" && "$PASSMAP" doctor --lib "$LIB" --keep rel/keep 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q '^compile on the NPU: *ok' && [ -s "$TMP/rel/keep/online/ov-compile.stdout" ] \
  && ok "doctor --keep with a relative DIR" || fail "relative --keep rc=$rc: $out"

out=$(PASSMAP_FAKEOV_DEVICES=CPU "$PASSMAP" doctor --lib "$LIB" --json 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["ok"] and not d["npu_present"], d
assert not d["online"]["tried"] and d["offline"]["ok"] and d["offline"]["offline"], d
assert d["offline"]["timing_blocks"] >= 1 and d["npu_compiler_version_decoded"] == "7.9", d
assert d["llm"]["ok"] and d["llm"]["offline"] and d["llm"]["timing_blocks"] >= 5, d["llm"]
' && ok "no NPU: the offline compile is what counts (--json)" || fail "offline doctor rc=$rc: $out"

out=$("$PASSMAP" doctor --lib "$TMP/missing.so" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'NOT FOUND.*missing.so' && ok "missing library: exit 1, named" || fail "missing lib rc=$rc: $out"
out=$(PASSMAP_FAKEOV_DEVICES=CPU "$PASSMAP" doctor --lib "$LIB" --platform NOPE9999 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q 'compile offline (NOPE9999): *FAILED' && echo "$out" | grep -q 'NOT ready' \
  && ok "no NPU and the offline compile fails: the doctor fails loudly" || fail "bad platform rc=$rc: $out"
# Issue 38: what a first real run could not do. Each compiler set on the core and asked (DRIVER, PLUGIN), which
# one the study uses, passmap's keys against SUPPORTED_PROPERTIES, MemTotal beside the LLM weights, the tiny IR
# labelled inferred, the NPUW line count of the LLM compile.
out=$("$PASSMAP" doctor --lib "$LIB" 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q '^compiler DRIVER: *ok, version 7.6 (reported 458758)' \
  && echo "$out" | grep -q '^compiler PLUGIN: *ok, version 7.9 (reported 458761)' \
  && echo "$out" | grep -q "^study's compiler: *DRIVER" \
  && echo "$out" | grep -q '^properties: *every key passmap sends is in SUPPORTED_PROPERTIES' \
  && echo "$out" | grep -q '^memory: *MemTotal [0-9.]* MB, LLM weights [0-9.]* MB' \
  && echo "$out" | grep -q '^LLM model: .*(tiny IR (inferred layout)' \
  && echo "$out" | grep -q '^ *NPUW lines: 5$' \
  && echo "$out" | grep -q '^ *compiler DRIVER, version 7.6 (from the core with NPU_COMPILER_TYPE=DRIVER)' \
  && ok "doctor: each compiler's status and version, the study's, keys, memory, NPUW lines" || fail "doctor issue-38 lines: $out"
# A build whose NPUW logging is compiled out: the count is 0, the split unavailable, an inferred one labelled.
out=$(PASSMAP_FAKEOV_NPUW_NOLOG=1 "$PASSMAP" doctor --lib "$LIB" 2>&1); rc=$?
[ $rc = 0 ] && echo "$out" | grep -q '^ *NPUW lines: 0$' && echo "$out" | grep -q 'submodel split unavailable on this build' \
  && echo "$out" | grep -q "inferred split (upstream's compile order, not named by the log): generate 2 block(s), prefill 2, LM head 1" \
  && ok "doctor: no NPUW lines said, the inferred split labelled" || fail "doctor nolog rc=$rc: $out"
# intel-driver-compiler-npu missing: named as such; the study's DRIVER compile fails, so the doctor does.
out=$(PASSMAP_FAKEOV_NO_DRIVER_COMPILER=1 "$PASSMAP" doctor --lib "$LIB" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q '^compiler DRIVER: *unavailable: .*libnpu_driver_compiler.so.* -- intel-driver-compiler-npu is not installed' \
  && echo "$out" | grep -q '^compiler PLUGIN: *ok' && ok "doctor: a missing intel-driver-compiler-npu named" || fail "no driver compiler rc=$rc: $out"
# A refused key: listed against SUPPORTED_PROPERTIES and named on each failed compile; the tiny LLM's failure
# shows OpenVINO's text and suggests a real export.
out=$(PASSMAP_FAKEOV_REFUSE=NPUW_LLM_SHARED_HEAD "$PASSMAP" doctor --lib "$LIB" --json 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["unadvertised_properties"] == "NPUW_LLM_SHARED_HEAD", d["unadvertised_properties"]
assert d["llm"]["refused_property"] == "NPUW_LLM_SHARED_HEAD" and not d["llm"]["ok"], d["llm"]
assert d["npu_compilers"]["DRIVER"]["ok"] and d["study_compiler_type"] == "DRIVER", d
' && ok "doctor --json: unadvertised key and the refused one" || fail "refused json rc=$rc: $out"
out=$(PASSMAP_FAKEOV_REFUSE=NPUW_LLM_SHARED_HEAD "$PASSMAP" doctor --lib "$LIB" 2>&1); rc=$?
[ $rc = 1 ] && echo "$out" | grep -q '^properties: *not in SUPPORTED_PROPERTIES: NPUW_LLM_SHARED_HEAD' \
  && echo "$out" | grep -q '^ *refused property: NPUW_LLM_SHARED_HEAD' \
  && echo "$out" | grep -q "^ *OpenVINO said: .*Option 'NPUW_LLM_SHARED_HEAD' is not supported" \
  && echo "$out" | grep -q 'try a real export, --llm-model X.xml' \
  && ok "doctor: the refused key named, the failure's text and --llm-model suggested" || fail "refused text rc=$rc: $out"
check_fails "unknown option is a usage error" "$PASSMAP" doctor --bogus
"$PASSMAP" doctor --help | grep -q -- '--platform' && ok "--help" || fail "--help"
finish
