#!/bin/bash
# Per-SASS-instruction warp-stall sampling (and inst_executed) on the H100 of cases whose SASS-model instruction counts are off
# (run on the device machine from the repo root). Usage: bash <this dir>/collect.sh OUTDIR [INTERVAL]
# INTERVAL: --warp-sampling-interval (auto or 0..31; sampling period 2^(5+INTERVAL) cycles per SM sub-partition)
set -u
HERE=validation/data/h100/ncu/sass_stalls_inst_2026-11-28
O=${1:-/tmp/sass_stalls}; IV=${2:-auto}; mkdir -p $O/rep $O/csv $O/log
export PYTHONUNBUFFERED=1
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu | tail -1)
NCU_PY=$(dirname "$(find / -xdev -name ncu_report.py -path "*extras/python*" 2>/dev/null | head -1)")
{ date -u +%Y-%m-%dT%H:%M:%SZ; $NCU --version; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm --format=csv; nvidia-smi; } > $O/log/env.txt 2>&1
FLAGS="--clock-control none --cache-control all --target-processes all --replay-mode kernel --section SourceCounters --section WarpStateStats --import-source no --warp-sampling-interval $IV --warp-sampling-buffer-size 536870912"
prof() {  # name kernel-regex skip cmd...
  local n=$1 k=$2 s=$3; shift 3
  echo "== $n: $NCU $FLAGS -k $k --launch-skip $s --launch-count 1 --export $O/rep/$n -f $*" | tee -a $O/log/commands.txt
  local t0=$SECONDS
  $NCU $FLAGS -k "$k" --launch-skip $s --launch-count 1 --export $O/rep/$n -f "$@" > $O/log/$n.profile.log 2>&1
  echo "   rc=$? $((SECONDS-t0))s" | tee -a $O/log/commands.txt
  $NCU --import $O/rep/$n.ncu-rep --page source --csv --print-source sass > $O/csv/$n.source_sass.csv 2> $O/log/$n.source.err
  $NCU --import $O/rep/$n.ncu-rep --page raw --csv --print-units base > $O/csv/$n.raw.csv 2>> $O/log/$n.source.err
}
for c in ${CASES:-store_rows8 store_rows4 store_s32 atomic_one_address atomic_per_warp gatomic_per_cta gatomic_bins256 gatomic_wrap32}; do
  prof $c "regex:." 0 python3 validation/record.py --ncu-target --cases $c --order-file $O/run_$c.order
done
echo "ncu_report from $NCU_PY" >> $O/log/commands.txt
PYTHONPATH=$NCU_PY python3 validation/data/h100/ncu/sass_stalls_2026-11-27/dump_pcsamp.py $O/rep $O/csv > $O/log/dump_pcsamp.log 2>&1
echo "dump rc=$?" >> $O/log/commands.txt
