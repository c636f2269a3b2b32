#!/usr/bin/env bash
# Runner bench: does `passmap run` measure the same wall time as hyperfine, and what does it add per run?
# Three commands, each timed by both tools side by side in one run, interleaved in ABAB blocks of 10 runs
# (hyperfine block, passmap block, hyperfine block, ...) so that drift on this noisy machine hits both:
#   llc          llc -O2 -filetype=obj of a small .ll made here from MLIR (a real, short compile)
#   mlir-opt     mlir-opt --version (a near-empty process that still loads the large MLIR libraries)
#   true         /bin/true, from which passmap's fixed per-run overhead is estimated
# Usage: bench/runner.sh PASSMAP_BINARY
#   BENCH_RUNNER_BLOCKS=N       blocks of 10 runs per tool for llc and mlir-opt (default 2: 20 runs each)
#   BENCH_RUNNER_TRUE_BLOCKS=N  the same for true (default 10: it costs ~1 ms a run, and the overhead estimate is a
#                               difference of two small, noisy means)
source "$(dirname "$0")/lib.sh"

NAME=runner
BLOCK=10
BLOCKS=${BENCH_RUNNER_BLOCKS:-2}
TRUE_BLOCKS=${BENCH_RUNNER_TRUE_BLOCKS:-10}
WARMUP=2
# Agreement wanted on commands doing real work: passmap's mean wall within 10% of hyperfine's. Tighter would be
# noise here: on 2 shared cores, block means of the same command drift by 20-30% (see bench/README.md).
AGREE='ratio>=0.9&&ratio<=1.1'

if ! bench_require_hyperfine; then
    bench_skip $NAME all "hyperfine missing"
    exit 0
fi
for t in llc mlir-opt mlir-translate; do
    if [ ! -x "$LLVM_BIN/$t" ]; then
        bench_skip $NAME all "$LLVM_BIN/$t missing"
        exit 0
    fi
done

# A small module: a few arith ops in one func, called from an scf.for loop in another, lowered to LLVM IR.
cat >"$BENCH_TMP/kernel.mlir" <<'EOF'
func.func @poly(%x: i64, %y: i64) -> i64 {
  %c3 = arith.constant 3 : i64
  %a = arith.muli %x, %x : i64
  %b = arith.muli %a, %c3 : i64
  %c = arith.addi %b, %y : i64
  %d = arith.xori %c, %x : i64
  %e = arith.divsi %d, %c3 : i64
  return %e : i64
}
func.func @sum(%n: index, %x: i64) -> i64 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %z) -> (i64) {
    %ii = arith.index_cast %i : index to i64
    %p = func.call @poly(%ii, %x) : (i64, i64) -> i64
    %s = arith.addi %acc, %p : i64
    scf.yield %s : i64
  }
  return %r : i64
}
EOF
if ! "$LLVM_BIN/mlir-opt" --convert-scf-to-cf --convert-arith-to-llvm --convert-cf-to-llvm --convert-func-to-llvm \
        --reconcile-unrealized-casts "$BENCH_TMP/kernel.mlir" -o "$BENCH_TMP/kernel.llvm.mlir" ||
   ! "$LLVM_BIN/mlir-translate" --mlir-to-llvmir "$BENCH_TMP/kernel.llvm.mlir" -o "$BENCH_TMP/kernel.ll"; then
    echo "runner bench: could not make kernel.ll" >&2
    exit 1
fi

cases=(llc mlir-opt true)
declare -A cmd
cmd[llc]="$LLVM_BIN/llc -O2 -filetype=obj $BENCH_TMP/kernel.ll -o $BENCH_TMP/kernel.o"
cmd[mlir-opt]="$LLVM_BIN/mlir-opt --version"
cmd[true]="$(type -P true)"

declare -A nblocks=([llc]=$BLOCKS [mlir-opt]=$BLOCKS [true]=$TRUE_BLOCKS)
echo "runner: hyperfine $(hyperfine --version | cut -d' ' -f2) vs passmap run, ABAB blocks of $BLOCK runs" \
     "(+$WARMUP warmup each): $BLOCKS blocks per tool for llc and mlir-opt, $TRUE_BLOCKS for true"
for c in "${cases[@]}"; do
    read -r -a argv <<<"${cmd[$c]}"
    for ((b = 1; b <= nblocks[$c]; b++)); do
        if ! hyperfine -N --style none --warmup $WARMUP --runs $BLOCK \
                --export-json "$BENCH_TMP/$c.hyperfine.$b.json" "${cmd[$c]}" >/dev/null 2>"$BENCH_TMP/hf.err"; then
            echo "runner bench: hyperfine failed on: ${cmd[$c]}" >&2
            cat "$BENCH_TMP/hf.err" >&2
            exit 1
        fi
        if ! "$PASSMAP" run -n $BLOCK --warmup $WARMUP --json -- "${argv[@]}" \
                >"$BENCH_TMP/$c.passmap.$b.json" 2>"$BENCH_TMP/pm.err"; then
            echo "runner bench: passmap run failed on: ${cmd[$c]}" >&2
            cat "$BENCH_TMP/pm.err" >&2
            exit 1
        fi
    done
done
# A check that cannot pass on a no-op: llc must have written an ELF object.
if [ "$(head -c 4 "$BENCH_TMP/kernel.o" | od -An -c | tr -d ' ')" != '177ELF' ]; then
    echo "runner bench: llc produced no ELF object" >&2
    exit 1
fi

# Prints "metric<TAB>value<TAB>unit<TAB>peer<TAB>target<TAB>lo<TAB>hi<TAB>note" lines for bench_result_ci.
"$PY" - "$BENCH_TMP" "$BLOCKS" "$TRUE_BLOCKS" "$AGREE" >"$BENCH_TMP/lines.tsv" <<'EOF' || exit 1
import json, math, statistics, sys

tmp, agree = sys.argv[1], sys.argv[4]
nblocks = {"llc": int(sys.argv[2]), "mlir-opt": int(sys.argv[2]), "true": int(sys.argv[3])}

def hyperfine_times(case):
    """Wall times per block, and CPU (user+sys) per run averaged over all blocks (hyperfine gives only means)."""
    blocks_t, cpu, n = [], 0.0, 0
    for b in range(1, nblocks[case] + 1):
        with open(f"{tmp}/{case}.hyperfine.{b}.json") as f:
            r = json.load(f)["results"][0]
        if any(code != 0 for code in r.get("exit_codes", [])):
            sys.exit(f"runner bench: hyperfine saw a failing run of {case}")
        blocks_t.append(r["times"])
        cpu += (r["user"] + r["system"]) * len(r["times"])
        n += len(r["times"])
    return blocks_t, cpu / n

def passmap_times(case):
    blocks_t, cpu = [], []
    for b in range(1, nblocks[case] + 1):
        with open(f"{tmp}/{case}.passmap.{b}.json") as f:
            doc = json.load(f)
        bad = [r for r in doc["runs"] if r["status"] != "ok"]
        if bad:
            sys.exit(f"runner bench: passmap saw a failing run of {case}: {bad[0]['status']}")
        blocks_t.append([r["wall_s"] for r in doc["runs"]])
        cpu += [r["user_s"] + r["sys_s"] for r in doc["runs"]]
    return blocks_t, statistics.mean(cpu)

def self_drift(blocks_t):
    """How far one tool's block medians of the same command move apart: max/min - 1."""
    med = [statistics.median(t) for t in blocks_t]
    return max(med) / min(med) - 1 if len(med) > 1 else 0.0

def ratio_ci(a, b):
    """Ratio of means a/b with a 95% interval by the delta method (normal approximation)."""
    ma, mb = statistics.mean(a), statistics.mean(b)
    r = ma / mb
    rel = math.sqrt(statistics.variance(a) / (len(a) * ma * ma) + statistics.variance(b) / (len(b) * mb * mb))
    return r, r * (1 - 1.96 * rel), r * (1 + 1.96 * rel)

ms = lambda s: f"{s * 1e3:.3f}"
out = []
walls = {}
for case in ("llc", "mlir-opt", "true"):
    (hb, h_cpu), (pb, p_cpu) = hyperfine_times(case), passmap_times(case)
    h, p = sum(hb, []), sum(pb, [])
    walls[case] = (p, h)
    r, lo, hi = ratio_ci(p, h)
    # The iid interval ignores drift between blocks, which here is often larger than any passmap effect: widen it
    # by the larger of the two tools' own block-to-block drift before it decides whether a miss is only noise.
    drift = max(self_drift(hb), self_drift(pb))
    pairs = ", ".join(f"{statistics.mean(a) / statistics.mean(b):.3f}" for a, b in zip(pb, hb))
    note = (f"iid ratio 95% CI [{lo:.3f}, {hi:.3f}], widened by self-drift {drift * 100:.0f}% to "
            f"[{lo / (1 + drift):.3f}, {hi * (1 + drift):.3f}]; block-pair ratios {pairs}; "
            f"medians {ms(statistics.median(p))}/{ms(statistics.median(h))} ms; "
            f"sd {ms(statistics.stdev(p))}/{ms(statistics.stdev(h))} ms; max {ms(max(p))}/{ms(max(h))} ms; "
            f"n={len(p)}/{len(h)} (passmap/hyperfine)")
    target = agree if case != "true" else "-"
    out.append((f"{case}.wall_mean", ms(statistics.mean(p)), "ms", ms(statistics.mean(h)), target,
                f"{lo / (1 + drift):.4f}", f"{hi * (1 + drift):.4f}", note))
    if case != "true":
        out.append((f"{case}.cpu_mean", ms(p_cpu), "ms", ms(h_cpu), "-", "-", "-",
                    "user+sys of the child, from wait4 rusage"))
p, h = walls["true"]
out.append(("overhead_per_run", f"{(statistics.mean(p) - statistics.mean(h)) * 1e3:.3f}", "ms", "-", "-", "-", "-",
            f"mean wall of true: passmap {ms(statistics.mean(p))} minus hyperfine {ms(statistics.mean(h))} ms; "
            f"by medians {(statistics.median(p) - statistics.median(h)) * 1e3:.3f} ms"))
for line in out:
    print("\t".join(line))
EOF
while IFS=$'\t' read -r metric value unit peer target lo hi note; do
    bench_result_ci $NAME "$metric" "$value" "$unit" "$peer" "$target" "$lo" "$hi" "$note"
done <"$BENCH_TMP/lines.tsv"
