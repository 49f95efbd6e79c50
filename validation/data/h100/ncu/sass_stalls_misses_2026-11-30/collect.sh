#!/bin/bash
# Per-SASS-instruction warp-stall sampling of three held-out programs whose top-3 stall set gpusim misses and
# which had no per-SASS table (diagnosis only). Usage: bash <this dir>/collect.sh OUTDIR [INTERVAL]. The atomics
# collection's commands with these cases.
CASES="${CASES:-prog_relu_matmul prog_strided ho_gather_random}" \
  exec bash validation/data/h100/ncu/sass_stalls_atomics_2026-11-27/collect.sh "$@"
