#!/bin/bash
# Per-SASS-instruction warp-stall sampling of the Triton programs not sampled before (tri_softmax, tri_histogram,
# tri_layernorm, tri_matmul, tri_matmul_fp8, tri_flash_attention). Diagnosis only: nothing is fitted on them.
# Run on the device machine from the repo root: bash <this dir>/collect.sh OUTDIR [INTERVAL]
# The commands are those of ../sass_stalls_2026-11-27/collect.sh (checked launch + 1 repeat, the repeat profiled).
set -u
O=${1:-/tmp/sass_stalls}; IV=${2:-0}; mkdir -p $O/rep $O/csv $O/log
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
T=validation/triton/run_h100.py
for c in ${CASES:-softmax histogram layernorm matmul matmul_fp8 flash_attention}; do
  k=$(python3 -c "import json;print(json.load(open('validation/triton/manifest.json'))['$c']['kernel'])")
  mkdir -p $O/run_$c
  TRITON_NCU_REPEATS=1 prof tri_$c "regex:^${k}\$" 1 python3 $T --ncu $O/run_$c $c
done
echo "ncu_report from $NCU_PY" >> $O/log/commands.txt
PYTHONPATH=$NCU_PY python3 validation/data/h100/ncu/sass_stalls_2026-11-27/dump_pcsamp.py $O/rep $O/csv > $O/log/dump_pcsamp.log 2>&1
echo "dump rc=$?" >> $O/log/commands.txt
