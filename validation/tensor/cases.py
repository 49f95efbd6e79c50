"""The tensor-core / async-copy microbenchmark cases, shared by run_h100.py (device) and compare.py (gpusim).

Every kernel takes (in_or_src, sink f32[grid*block], clk i64[3*grid*warps], iters[, mask]) and writes per warp
{clock64 before, clock64 after, %smid} (lane 0) into clk. `per_iter` is how many timed instructions one warp
(one warpgroup for wgmma) executes per outer iteration; `unit` is the threads that issue one of them.
"""
import numpy as np

SMS = 132
# FLOP (or int op) per instruction, for the FLOP/cycle/SM figure
FLOPS = {"f16": 2 * 16 * 8 * 16, "bf16": 2 * 16 * 8 * 16, "tf32": 2 * 16 * 8 * 8, "e4m3": 2 * 16 * 8 * 32,
         "s8": 2 * 16 * 8 * 32, "f64": 2 * 8 * 8 * 4}
PTX_OF = {"tensor_bench": "tensor_bench.ptx", "hopper_bench": "hopper_bench.ptx", "cluster_bench": "cluster_bench.ptx"}
TMA_CHUNK = 8192        # cluster_bench.cu CHUNK: bytes per cp.async.bulk


def _c(name, mod, kernel, grid, block, iters, kind, per_iter, unit=32, flop=None, sim_iters=None, sim_grid=1,
       note="", bytes_per_iter=None):
    """bytes_per_iter: bytes one block moves per iteration (bandwidth cases; default 16 per thread)."""
    return dict(name=name, mod=mod, kernel=kernel, grid=grid, block=block, iters=iters, kind=kind,
                per_iter=per_iter, unit=unit, flop=flop, sim_iters=sim_iters or max(2, iters // 16),
                sim_grid=min(grid, sim_grid), note=note, bytes_per_iter=bytes_per_iter or 16 * block)


def all_cases():
    cs = []
    # (label, kernel stem, flop type): e4m3 is measured with varied operands (e4m3v: ptxas folds the constant-operand
    # kernel into FADDs, recorded as mma_e4m3_folded_*); f16v is the same varied-operand form for f16, a control.
    for label, stem, t in (("f16", "f16", "f16"), ("bf16", "bf16", "bf16"), ("tf32", "tf32", "tf32"),
                           ("e4m3", "e4m3v", "e4m3"), ("s8", "s8", "s8"), ("f64", "f64", "f64"),
                           ("f16_varied", "f16v", "f16"), ("e4m3_folded", "e4m3", "e4m3")):
        cs.append(_c(f"mma_{label}_lat", "tensor_bench", f"mma_{stem}_c1", 1, 32, 256, "lat", 16, flop=FLOPS[t],
                     sim_iters=32, note="1 warp, one dependent chain of 4096 mma"))
        for w in (4, 8, 16):
            cs.append(_c(f"mma_{label}_tput_w{w}", "tensor_bench", f"mma_{stem}_c4", SMS, 32 * w, 64, "tput", 64,
                         flop=FLOPS[t], sim_iters=16, note=f"{w} warps/SM, 4 independent chains per warp"))
    cs.append(_c("ldmatrix_x4_lat", "tensor_bench", "ldmatrix_lat", 1, 32, 256, "lat", 16, sim_iters=32,
                 note="1 warp, chain: address += loaded r0 (0): ldmatrix + IADD per step"))
    for w in (4, 8, 16):
        cs.append(_c(f"ldmatrix_x4_tput_w{w}", "tensor_bench", "ldmatrix_tput", SMS, 32 * w, 64, "tput", 16,
                     sim_iters=16, note=f"{w} warps/SM, 4 independent conflict-free x4 loads per step"))
    for bps in (1, 2, 4):
        g = SMS * bps
        cs.append(_c(f"cp_async_bw_dram_b{bps}", "tensor_bench", "cp_async_bw", g, 256, (1 << 29) // (g * 4096),
                     "bw", 1, sim_iters=64, sim_grid=g,
                     note=f"{bps} x 256-thread blocks/SM stream 512 MiB (L2 flushed), "
                          "16 B cp.async.cg/thread, 4 stages"))
    cs.append(_c("cp_async_bw_l2_b2", "tensor_bench", "cp_async_bw", 2 * SMS, 256, 496, "bw", 1, sim_iters=32,
                 sim_grid=2 * SMS, note="as b2 but wrapped over 8 MiB (L2-resident after the first pass)"))
    cs.append(_c("cp_async_lat", "tensor_bench", "cp_async_lat", 1, 1, 2048, "chase", 1, sim_iters=256,
                 note="1 thread: cp.async 16 B, commit, wait_group 0, ld.shared next index; nodes 64 KiB apart"))
    cs.append(_c("wgmma_m64n128k16_lat", "hopper_bench", "wgmma_lat", 1, 128, 256, "lat", 1, unit=128,
                 flop=2 * 64 * 128 * 16, sim_iters=32, note="1 warpgroup: fence; wgmma; commit; wait_group 0"))
    for wg in (1, 2):
        cs.append(_c(f"wgmma_m64n128k16_tput_wg{wg}", "hopper_bench", "wgmma_tput", SMS, 128 * wg, 64, "tput", 16,
                     unit=128, flop=2 * 64 * 128 * 16, sim_iters=8,
                     note=f"{wg} warpgroup(s)/SM: fence; 16 wgmma on one accumulator; commit; wait 0"))
    for nt in (32, 128):
        cs.append(_c(f"mbarrier_rt_t{nt}", "hopper_bench", "mbarrier_rt", 1, nt, 1024, "lat", 1, sim_iters=64,
                     note=f"{nt} threads arrive, then try_wait loop, per step"))
    cs += cluster_cases()
    return cs


def cluster_cases():
    """cluster_bench.cu: distributed shared memory, barrier.cluster, cp.async.bulk through the TMA unit."""
    cs = [_c("dsm_lat_c2", "cluster_bench", "dsm_lat", 2, 32, 64, "lat", 16, sim_iters=16, sim_grid=2,
             note="cluster of 2: rank 0's thread 0 chases a chain in rank 1's shared memory (mapa + ld)"),
          _c("smem_lat_c2", "cluster_bench", "smem_lat_c2", 2, 32, 64, "lat", 16, sim_iters=16, sim_grid=2,
             note="control: the same chase through its own shared memory (generic ld of a mapa'd own address)")]
    for n in (2, 4, 8):
        cs.append(_c(f"cluster_sync_c{n}", "cluster_bench", f"cluster_sync_c{n}", n, 128, 256, "lat", 1,
                     sim_iters=32, sim_grid=n, note=f"cluster of {n} x 128 threads: barrier.cluster.arrive + wait"))
    cs.append(_c("dsm_bw_c2", "cluster_bench", "dsm_bw", SMS, 256, 64, "bw", 1, sim_iters=8, sim_grid=2,
                 bytes_per_iter=256 * 8 * 16, note="clusters of 2, 1 CTA/SM: each thread reads 8 x 16 B of the "
                                                   "neighbour CTA's shared memory per step"))
    for bps in (1, 2):
        g = SMS * bps
        cs.append(_c(f"tma_bulk_bw_dram_b{bps}", "cluster_bench", "tma_bulk_bw", g, 128,
                     (1 << 29) // (g * TMA_CHUNK), "bw", 1, sim_iters=16, sim_grid=g, bytes_per_iter=TMA_CHUNK,
                     note=f"{bps} block(s)/SM: one thread keeps 4 cp.async.bulk of 8 KiB in flight (mbarrier "
                          "per stage), streaming 512 MiB (L2 flushed)"))
    cs.append(_c("tma_bulk_bw_l2_b1", "cluster_bench", "tma_bulk_bw", SMS, 128, 496, "bw", 1, sim_iters=32,
                 sim_grid=SMS, bytes_per_iter=TMA_CHUNK, note="as dram_b1 but wrapped over 8 MiB (L2-resident)"))
    return cs


def smem_chain(n=4096, seed=3):
    """n uint32 words: word i holds the next index of one random cycle over all n (shared-memory chase)."""
    order = np.random.default_rng(seed).permutation(n)
    a = np.zeros(n, np.uint32)
    a[order] = np.roll(order, -1)
    return a


def make_input(seed=0):
    """1024 random words: small-magnitude f16/bf16 pairs (exponent bits masked) that are also valid tf32,
    e4m3 and s8 patterns; random, never zero, except
    word 1023 (the runtime zero `z` of the varied-operand kernels)."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 1 << 32, 1024, dtype=np.uint64).astype(np.uint32)
    w = (w & np.uint32(0x33FF33FF)) | np.uint32(0x04000400)
    w[1023] = 0                     # z: the runtime zero the varied-operand kernels xor into their operands
    return w


def chase_array(n_nodes, spacing_nodes, seed=0):
    """uint32 words; node j at word 4*j*spacing; one random cycle over the n_nodes, starting at node 0."""
    rng = np.random.default_rng(seed)
    order = np.concatenate([[0], 1 + rng.permutation(n_nodes - 1)])
    a = np.zeros(4 * n_nodes * spacing_nodes, np.uint32)
    for i in range(n_nodes):
        a[4 * order[i] * spacing_nodes] = order[(i + 1) % n_nodes] * spacing_nodes
    return a


def derive(case, clk, iters, grid, block, elapsed_s=None):
    """The case's figure(s) from its clk records (int64 [n,3])."""
    warps = max(1, block // 32)
    c = np.asarray(clk)[:3 * max(grid * warps, 2)].reshape(-1, 3)
    per_unit = case["per_iter"] * iters
    if case["kind"] == "lat":
        cyc = int(c[0, 1] - c[0, 0])
        return {"cycles": cyc, "cycles_per_step": cyc / per_unit}
    if case["kind"] == "chase":
        return {"cycles_pass0": int(c[0, 1] - c[0, 0]), "cycles_pass1": int(c[1, 1] - c[1, 0]),
                "cycles_per_step_pass0": (c[0, 1] - c[0, 0]) / iters,
                "cycles_per_step_pass1": (c[1, 1] - c[1, 0]) / iters}
    units_per_block = block // case["unit"]
    blocks = c.reshape(grid, warps, 3)
    sm = blocks[:, 0, 2]
    out = {"distinct_sms": int(len(np.unique(sm)))}
    rates = []
    for s in np.unique(sm):
        bl = blocks[sm == s]
        span = int(bl[:, :, 1].max() - bl[:, :, 0].min())
        n = len(bl)
        if case["kind"] == "tput":
            rates.append(n * units_per_block * per_unit / span)
        else:  # bw: bytes per SM per cycle
            rates.append(n * case.get("bytes_per_iter", 16 * block) * iters / span)
    key = "inst_per_cycle_per_sm" if case["kind"] == "tput" else "bytes_per_cycle_per_sm"
    out[key] = float(np.median(rates))
    out[key + "_min"] = float(np.min(rates))
    out[key + "_max"] = float(np.max(rates))
    if case["kind"] == "tput" and case["flop"]:
        out["flop_per_cycle_per_sm"] = out[key] * case["flop"]
    if case["kind"] == "bw" and elapsed_s:
        total = grid * case.get("bytes_per_iter", 16 * block) * iters
        out["event_bytes_per_s"] = total / elapsed_s
        out["event_bytes_per_cycle_per_sm_at_1980"] = total / elapsed_s / 1.98e9 / SMS
    return out


def figure(case, d):
    """The one headline figure of a derived dict (for tables)."""
    k = case["kind"]
    if k == "lat":
        return d["cycles_per_step"]
    if k == "chase":
        return d["cycles_per_step_pass0"]
    if k == "tput":
        return d["inst_per_cycle_per_sm"]
    return d["bytes_per_cycle_per_sm"]


UNITS = {"lat": "cycles/step", "chase": "cycles/step (pass0; pass1)", "tput": "inst/cycle/SM", "bw": "B/cycle/SM"}
