"""The roofline: the kernel's FLOPs and DRAM bytes against the preset's peaks.

Peaks are derived from the spec's fields, never written down here: FP32 = SMs x sub-partitions x 32
lanes / FP32 issue interval x 2 (an FMA is two FLOPs) x clock; FP64 the same with the FP64 interval;
tensor = SMs x the f16 mma rate (FLOP/cycle/SM) x clock; DRAM and L2 bandwidth = bytes/cycle x clock.
FLOPs are counted from the executed instructions: per thread, add/sub/mul/min/max 1, fma/mad 2 (f16x2
and bf16x2 twice that); per warp, mma.sync 2*m*n*k and per warpgroup wgmma 2*64*n*k."""
from __future__ import annotations

import re
from dataclasses import dataclass

_SCALAR = re.compile(r"^(add|sub|mul|fma|mad|min|max|neg|abs)(\.[a-z0-9]+)*\.(f16x2|bf16x2|f16|bf16|f32|f64)\b")
_MMA = re.compile(r"^mma\.sync\.aligned\.m(\d+)n(\d+)k(\d+)")
_WGMMA = re.compile(r"^wgmma\.mma_async\.sync\.aligned\.m(\d+)n(\d+)k(\d+)")


@dataclass(frozen=True)
class Peaks:
    fp32_flops: float       # FLOP/s
    fp64_flops: float
    tensor_flops: float     # dense f16 mma
    dram_bytes: float       # bytes/s
    l2_bytes: float

    @property
    def ridge(self) -> float:
        """FLOP/byte where the FP32 roof meets the DRAM roof."""
        return self.fp32_flops / self.dram_bytes


def peaks(spec) -> Peaks:
    hz = spec.clock_mhz * 1e6
    lanes = spec.n_sm * spec.scheduler.subpartitions * 32
    return Peaks(fp32_flops=lanes / spec.pipes.ii_fp32 * 2 * hz, fp64_flops=lanes / spec.pipes.ii_fp64 * 2 * hz,
                 tensor_flops=spec.n_sm * spec.pipes.tensor_f16 * hz,
                 dram_bytes=spec.dram.bandwidth * hz, l2_bytes=spec.l2.bandwidth * hz)


def flops_of(text: str) -> tuple[float, float]:
    """(FLOPs per active thread, FLOPs per warp instruction) of one PTX instruction's text."""
    op = text.split()[0] if text else ""
    op = op.split("}")[-1]
    if op.startswith("@"):
        return 0.0, 0.0
    m = _SCALAR.match(op)
    if m:
        n = 2.0 if m.group(1) in ("fma", "mad") else 1.0
        return n * (2 if m.group(3).endswith("x2") else 1), 0.0
    m = _MMA.match(op)
    if m:
        a, b, c = (int(x) for x in m.groups())
        return 0.0, 2.0 * a * b * c
    m = _WGMMA.match(op)
    if m:
        a, b, c = (int(x) for x in m.groups())
        return 0.0, 2.0 * a * b * c / 4      # one warpgroup instruction is four warps' instructions
    return 0.0, 0.0


def _instruction(text: str) -> str:
    """The instruction without its guard predicate: `@%p1 fma.rn.f32 ...` -> `fma.rn.f32 ...`."""
    parts = text.split()
    return " ".join(parts[1:]) if parts and parts[0].startswith("@") else text


def kernel_flops(r) -> float:
    """FLOPs the launch executed (scalar floating-point arithmetic and tensor-core mma)."""
    d, total = r.decoded, 0.0
    for pc in range(d.n):
        warps = int(r.per_pc["warp"][pc])
        if not warps:
            continue
        per_thread, per_warp = flops_of(_instruction(d.texts[pc]))
        total += per_thread * int(r.per_pc["thread"][pc]) + per_warp * warps
    return total


@dataclass(frozen=True)
class Point:
    flops: float            # FLOPs executed
    dram_bytes: float       # bytes read + written at DRAM
    seconds: float          # the launch's simulated time

    @property
    def intensity(self) -> float:
        return self.flops / self.dram_bytes if self.dram_bytes else float("inf")

    @property
    def flops_per_s(self) -> float:
        return self.flops / self.seconds if self.seconds else 0.0

    @property
    def bytes_per_s(self) -> float:
        return self.dram_bytes / self.seconds if self.seconds else 0.0


def point(r) -> Point:
    m = r.metrics
    dram = float(m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0))
    return Point(flops=kernel_flops(r), dram_bytes=dram,
                 seconds=r.cycles / (r.timing["clock_mhz"] * 1e6) if r.timing else 0.0)


def bound(p: Point, pk: Peaks) -> str:
    """'memory' or 'compute': which FP32 roof the point sits under."""
    return "memory" if p.intensity < pk.ridge else "compute"
