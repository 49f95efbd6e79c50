#!/bin/bash
# Per-SASS-instruction warp-stall sampling on the H100 of 15 more cases (held-out programs: diagnosis only; and
# microbenchmarks). Usage: bash <this dir>/collect.sh OUTDIR [INTERVAL]. The atomics collection's commands with
# these cases (the run of 2026-11-27 called that script with CASES set to this list).
CASES="${CASES:-ho_compact_atomic_naive ho_hist256_global_skewed ho_hist256_global_uniform ho_spmv_csr_scalar ho_transpose_diagonal prog_histogram prog_softmax ho_reduce6_unrolled ho_convsep_rows ho_stencil1d ho_reduce4_first_add exposed_b64 exposed_b256 burst_w8 burst_w8_light}" \
  exec bash validation/data/h100/ncu/sass_stalls_atomics_2026-11-27/collect.sh "$@"
