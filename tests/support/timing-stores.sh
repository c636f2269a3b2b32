# Sourced by e2e tests (after lib.sh): exact results stores made of LLVM -time-passes reports imported as runs
# (passmap import), so a gate's or an export's every number is known. Needs $PASSMAP and $TMP.
# report SCALE SEED JITTER: an llc -time-passes report, each pass's time x SCALE x (1 + a uniform jitter of
# +-JITTER drawn from SEED)
report() {
  awk -v s="$1" -v seed="$2" -v j="$3" 'BEGIN{
    srand(seed); n=split("SelectionDAGISel:0.120 RegAllocGreedy:0.080 MachineScheduler:0.040 AsmPrinter:0.020",P," ");
    tot=0; for(i=1;i<=n;i++){split(P[i],kv,":"); t[i]=kv[2]*s*(1+j*(2*rand()-1)); nm[i]=kv[1]; tot+=t[i]}
    print "===-------------------------------------------------------------------------==="
    print "                      ... Pass execution timing report ..."
    print "===-------------------------------------------------------------------------==="
    printf "  Total Execution Time: %.4f seconds (%.4f wall clock)\n\n", tot, tot
    print "   ---User Time---   --System Time--   --User+System--   ---Wall Time---  --- Name ---"
    for(i=1;i<=n;i++) printf "   %.4f (%5.1f%%)   0.0000 (  0.0%%)   %.4f (%5.1f%%)   %.4f (%5.1f%%)  %s\n", t[i],100*t[i]/tot,t[i],100*t[i]/tot,t[i],100*t[i]/tot,nm[i]
    printf "   %.4f (100.0%%)   0.0000 (100.0%%)   %.4f (100.0%%)   %.4f (100.0%%)  Total\n", tot,tot,tot
  }'
}
# store DB SEED N JITTER SCALE-cfgA SCALE-cfgB SCALE-cfgC: three configs of N runs each (a scale "-": left out)
store() {
  local db=$1 seed=$2 n=$3 jit=$4 k=0 cfg s r
  shift 4
  for cfg in cfgA cfgB cfgC; do
    s=$1; shift; k=$((k + 1))
    [ "$s" = - ] && continue
    for r in $(seq 1 "$n"); do
      report "$(awk -v s="$s" -v k="$k" 'BEGIN{print s * (1 + 0.5 * k)}')" "$((seed * 100 + k * 10 + r))" "$jit" >"$TMP/r.txt"
      "$PASSMAP" import --quiet --db "$db" --sweep demo --config "$cfg" --tool llc "$TMP/r.txt" || return 1
    done
  done
}

