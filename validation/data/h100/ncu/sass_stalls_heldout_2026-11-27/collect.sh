#!/bin/bash
# Per-SASS-instruction warp-stall sampling on the H100 of held-out programs (diagnosis only: nothing is fitted on
# them). Usage: bash <this dir>/collect.sh OUTDIR [INTERVAL]. The commands are the atomics collection's, with
# these cases (the run of 2026-11-27 used a copy of that script with this list; same commands).
CASES="${CASES:-ho_scan_exclusive ho_local_hist_mode ho_reduce_gs_one_load ho_reduce_gs_two_loads prog_sgemm_tiled ho_matmul_tile32 ho_bitonic_sort_shared prog_reduce_shared ho_compact_warp_aggregated prog_transpose_tiled prog_saxpy prog_divergence}" \
  exec bash validation/data/h100/ncu/sass_stalls_atomics_2026-11-27/collect.sh "$@"
