"""GPU presets: frozen specs, named values, TOML overrides that name any bad key.

The h100 latencies and launch overhead are fitted by `gpusim calibrate` from the microbenchmarks
recorded on an H100 SXM5 (validation/data/h100, validation/calibration_h100.json); the rest is
seeded from published figures (shared/REFERENCE.md).

Every latency is in SM cycles, every size in bytes, every bandwidth in bytes per SM cycle.
"""
from __future__ import annotations

import dataclasses
import tomllib
from dataclasses import dataclass, field, fields

from gpusim.errors import ConfigError


@dataclass(frozen=True)
class GPUSpec:
    name: str = "h100"
    description: str = "NVIDIA H100 SXM5 80GB HBM3 (sm_90)"
    n_sm: int = 132                      # streaming multiprocessors
    clock_mhz: float = 1980.0            # SM clock
    subpartitions: int = 4               # warp schedulers per SM, one issue per cycle each
    max_threads_per_sm: int = 2048
    max_warps_per_sm: int = 64
    max_ctas_per_sm: int = 32
    max_threads_per_cta: int = 1024
    regs_per_sm: int = 65536             # 32-bit registers
    reg_alloc_unit: int = 256            # registers, allocated per warp in this granularity
    max_regs_per_thread: int = 255
    smem_per_sm: int = 233472            # bytes usable as shared memory (228 KB)
    smem_per_cta_reserved: int = 1024    # bytes the driver reserves per CTA
    smem_alloc_unit: int = 128           # bytes
    warp_scheduler: str = "lrr"          # "lrr" | "gto" | "oldest" (lrr: GTO starves spinning warps; waves_g132)
    cta_launch_latency: int = 180        # cycles from dispatch to first issue of a new CTA
    kernel_launch_overhead: int = 3933   # cycles before the first CTA starts (fitted: launch_empty)
    # pipelines: (latency cycles, issue interval cycles per warp instruction per sub-partition)
    lat_int: int = 4
    ii_int: int = 2
    lat_fp32: int = 4
    ii_fp32: int = 1
    lat_fp64: int = 8
    ii_fp64: int = 2
    lat_sfu: int = 18
    ii_sfu: int = 8
    lat_branch: int = 6
    lat_misc: int = 12
    ii_misc: int = 2
    lat_barrier: int = 20
    # memory
    sector_bytes: int = 32
    line_bytes: int = 128
    smem_latency: int = 19               # fitted: chase_shared (PTX address arithmetic adds the rest)
    smem_banks: int = 32
    l1_size: int = 262144 - 233472 + 65536   # bytes of L1 data cache left beside shared memory
    l1_assoc: int = 4
    l1_latency: int = 30                 # fitted: chase_l1 (42.8 cycles per dependent step on H100)
    l1_mshrs: int = 256
    lsu_issue_interval: int = 2          # cycles per memory instruction per SM (LSU throughput)
    l2_size: int = 52428800
    l2_assoc: int = 16
    l2_slices: int = 96
    l2_latency: int = 232                # fitted: chase_l2 (275.6 cycles per step)
    l2_bandwidth: float = 2.7e12 / 1980e6 * 1.9   # bytes/cycle, whole GPU
    dram_latency: int = 407              # cycles beyond L2 on a miss (fitted: chase_dram, 681.9/step)
    dram_bandwidth: float = 2.9e12 / 1980e6       # bytes/cycle, whole GPU (HBM3)
    dram_channels: int = 80              # independent channels (HBM3: 5 stacks x 16)
    dram_fetch_bytes: int = 64           # DRAM access granularity: a lone 32-B sector miss fetches its 64-B pair
    atomic_latency: int = 300
    atomic_same_address_cycles: int = 16  # SM-side serialisation per extra lane on one address in a warp
    l2_atomic_interval: float = 1.46      # cycles an L2 slice spends per atomic operation (per sector)
    extra: dict = field(default_factory=dict)

    def describe(self) -> list[tuple[str, object, str]]:
        return [(f.name, getattr(self, f.name), _UNITS.get(f.name, "")) for f in fields(self) if f.name != "extra"]


_UNITS = {"clock_mhz": "MHz", "smem_per_sm": "B", "smem_per_cta_reserved": "B", "l1_size": "B", "l2_size": "B",
          "sector_bytes": "B", "line_bytes": "B", "l2_bandwidth": "B/cycle", "dram_bandwidth": "B/cycle"}
for _f in ("cta_launch_latency", "kernel_launch_overhead", "smem_latency", "l1_latency", "l2_latency",
           "dram_latency", "atomic_latency") + tuple(f"lat_{x}" for x in ("int", "fp32", "fp64", "sfu", "branch",
                                                                        "misc", "barrier")):
    _UNITS[_f] = "cycles"

H100 = GPUSpec()
A100 = dataclasses.replace(
    H100, name="a100", description="NVIDIA A100 SXM4 40GB (sm_80)", n_sm=108, clock_mhz=1410.0,
    smem_per_sm=167936, l1_size=196608 - 167936 + 32768, l2_size=41943040, l2_slices=80, l2_latency=200,
    dram_latency=400, dram_bandwidth=1.55e12 / 1410e6, l2_bandwidth=1.55e12 / 1410e6 * 2.3)
V100 = dataclasses.replace(
    H100, name="v100", description="NVIDIA V100 SXM2 16GB (sm_70)", n_sm=80, clock_mhz=1530.0,
    max_ctas_per_sm=32, smem_per_sm=98304, smem_per_cta_reserved=0, l1_size=131072 - 98304 + 32768,
    l2_size=6291456, l2_slices=64, l2_latency=193, l1_latency=28, smem_latency=19, dram_latency=350,
    dram_bandwidth=0.85e12 / 1530e6, l2_bandwidth=0.85e12 / 1530e6 * 2.5)
TINY = dataclasses.replace(
    H100, name="tiny", description="two small SMs for teaching and tests", n_sm=2, max_threads_per_sm=512,
    max_warps_per_sm=16, max_ctas_per_sm=4, regs_per_sm=16384, smem_per_sm=16384, l1_size=4096,
    l2_size=65536, l2_slices=2, dram_bandwidth=16.0, dram_channels=2, l2_bandwidth=64.0, kernel_launch_overhead=0)
PRESETS = {p.name: p for p in (H100, A100, V100, TINY)}


def get_preset(name: str) -> GPUSpec:
    if name in PRESETS:
        return PRESETS[name]
    if name.endswith(".toml"):
        return load_toml(name)
    raise ConfigError(f"unknown GPU preset '{name}' (presets: {', '.join(PRESETS)}; or a .toml file)")


def apply_overrides(base: GPUSpec, overrides: dict, path: str = "") -> GPUSpec:
    known = {f.name: f for f in fields(GPUSpec)}
    changes = {}
    for key, value in overrides.items():
        kp = f"{path}{key}"
        if key not in known or key == "extra":
            raise ConfigError(f"unknown key '{kp}' (known keys: see `gpusim presets {base.name}`)")
        cur = getattr(base, key)
        if isinstance(cur, bool) or not isinstance(value, type(cur)) and not (
                isinstance(cur, float) and isinstance(value, int) and not isinstance(value, bool)):
            raise ConfigError(f"bad value for '{kp}': expected {type(cur).__name__}, got {value!r}")
        if isinstance(cur, (int, float)) and value < 0:
            raise ConfigError(f"bad value for '{kp}': must not be negative, got {value!r}")
        changes[key] = type(cur)(value)
    return dataclasses.replace(base, **changes)


def load_toml(path: str) -> GPUSpec:
    """A TOML file: optional `base = "h100"` plus `[gpu]` (or top-level) keys overriding the preset."""
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from None
    base_name = data.pop("base", "h100")
    if base_name not in PRESETS:
        raise ConfigError(f"{path}: bad value for 'base': unknown preset {base_name!r}")
    table = data.pop("gpu", {})
    if data and table:
        raise ConfigError(f"{path}: unknown key '{next(iter(data))}' (put overrides under [gpu])")
    prefix = "gpu." if table else ""
    spec = apply_overrides(PRESETS[base_name], table or data, prefix)
    return dataclasses.replace(spec, name=spec.name + "+" + path.rsplit("/", 1)[-1])
