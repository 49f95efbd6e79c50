"""GPU presets: a GPU spec is the unit specs it is made of; presets are named values of it; TOML
files override any field by its key path (`l1.latency`) and name the path of anything wrong.

The h100 latencies and launch overhead are fitted by `gpusim calibrate` from the microbenchmarks
recorded on an H100 SXM5 (validation/data/h100; `gpusim calibrate --write validation/calibration_h100.toml`
wrote the committed fit); the rest is measured by probes (validation/probes) or seeded from published
figures (shared/REFERENCE.md).

Every latency is in SM cycles, every size in bytes, every bandwidth in bytes per SM cycle.
"""
from __future__ import annotations

import dataclasses
import re
import tomllib
from dataclasses import dataclass, field

from gpusim.errors import ConfigError
from gpusim.memory.dram import DRAMSpec
from gpusim.memory.dsm import DSMSpec
from gpusim.memory.interconnect import InterconnectSpec
from gpusim.memory.l1 import L1Spec
from gpusim.memory.l2 import L2Spec
from gpusim.memory.shared_banks import SharedMemSpec
from gpusim.sm.asyncops import AsyncSpec
from gpusim.sm.fetch import FetchSpec
from gpusim.sm.lsu import LSUSpec
from gpusim.sm.pipelines import PipelineSpec
from gpusim.sm.resources import SMSpec
from gpusim.sm.scheduler import SchedulerSpec
from gpusim.spec import override, param, walk
from gpusim.timing.gigathread import GigaThreadSpec


@dataclass(frozen=True)
class GPUSpec:
    """A whole GPU: its SM count and clock, and the spec of every unit (`gpusim presets NAME`)."""
    name: str = param("h100", "", "preset name")
    description: str = param("NVIDIA H100 SXM5 80GB HBM3 (sm_90)", "", "what it models")
    n_sm: int = param(132, "count", "streaming multiprocessors", (1, 1024))
    clock_mhz: float = param(1980.0, "MHz", "SM clock: cycles convert to time at this rate", (1.0, 100_000.0))
    gigathread: GigaThreadSpec = field(default_factory=GigaThreadSpec)
    sm: SMSpec = field(default_factory=SMSpec)
    scheduler: SchedulerSpec = field(default_factory=SchedulerSpec)
    pipes: PipelineSpec = field(default_factory=PipelineSpec)
    fetch: FetchSpec = field(default_factory=FetchSpec)
    lsu: LSUSpec = field(default_factory=LSUSpec)
    smem: SharedMemSpec = field(default_factory=SharedMemSpec)
    l1: L1Spec = field(default_factory=L1Spec)
    noc: InterconnectSpec = field(default_factory=InterconnectSpec)
    l2: L2Spec = field(default_factory=L2Spec)
    dram: DRAMSpec = field(default_factory=DRAMSpec)
    asyncops: AsyncSpec = field(default_factory=AsyncSpec)
    dsm: DSMSpec = field(default_factory=DSMSpec)

    def describe(self) -> list[tuple[str, object, str, str]]:
        """(key path, value, unit, meaning) for every field."""
        return list(walk(self))

    def with_(self, **changes) -> GPUSpec:
        """A copy with fields changed by key path: `spec.with_(**{"l1.latency": 40})`, or nested dicts."""
        return override(self, changes)

    def validate(self, prefix: str = "") -> None:
        if self.n_sm < 1:
            raise ConfigError(f"bad value for '{prefix}n_sm': must be at least 1")
        if self.gigathread.gpcs > self.n_sm:
            raise ConfigError(f"bad value for '{prefix}gigathread.gpcs': more GPCs than the {self.n_sm} SMs")
        if self.clock_mhz <= 0:
            raise ConfigError(f"bad value for '{prefix}clock_mhz': must be positive")


H100 = GPUSpec()
A100 = H100.with_(
    name="a100", description="NVIDIA A100 SXM4 40GB (sm_80)", n_sm=108, clock_mhz=1410.0,
    gigathread={"gpcs": 7, "max_cluster": 1},
    sm={"smem": 167936},
    # A100 whitepaper: 312 dense FP16 tensor TFLOPS = 108 SMs x 2048 FLOP/cycle x 1410 MHz; TF32 156, INT8 624
    # TOPS, FP64 tensor 19.5 TFLOPS (128 FLOP/cycle/SM); no FP8 mma on sm_80 (given INT8's rate)
    pipes={"tensor_f16": 2048, "tensor_tf32": 1024, "tensor_int8": 4096, "tensor_fp8": 4096, "tensor_f64": 128,
           "lat_tensor": 24},
    l1={"size": 196608 - 167936 + 32768, "unified": 0},
    # l2.usable 1.0 on the A100 and V100: not measured there (the H100's 0.79 is fitted on its own probe)
    l2={"size": 41943040, "usable": 1.0, "slices": 80, "latency": 200, "bandwidth": 1.55e12 / 1410e6 * 2.3},
    dram={"latency": 400, "bandwidth": 1.55e12 / 1410e6, "capacity": 40536 << 20})
V100 = H100.with_(
    name="v100", description="NVIDIA V100 SXM2 16GB (sm_70)", n_sm=80, clock_mhz=1530.0,
    gigathread={"gpcs": 6, "max_cluster": 1},
    # V100 whitepaper: 125 FP16 tensor TFLOPS = 80 SMs x 1024 FLOP/cycle x 1530 MHz. sm_70 runs only f16
    # mma (m8n8k4, which gpusim does not model); the other rates are given as f16's / FP64's for completeness
    pipes={"tensor_f16": 1024, "tensor_tf32": 1024, "tensor_int8": 1024, "tensor_fp8": 1024, "tensor_f64": 64,
           "lat_tensor": 24},
    sm={"max_ctas": 32, "smem": 98304, "smem_per_cta_reserved": 0},
    smem={"latency": 19},
    l1={"size": 131072 - 98304 + 32768, "latency": 28, "unified": 0},
    l2={"size": 6291456, "usable": 1.0, "slices": 64, "partitions": 1, "latency": 193,
        "bandwidth": 0.85e12 / 1530e6 * 2.5},
    dram={"latency": 350, "bandwidth": 0.85e12 / 1530e6, "capacity": 16160 << 20})
TINY = H100.with_(
    name="tiny", description="two small SMs for teaching and tests", n_sm=2,
    gigathread={"launch_overhead": 0, "gpcs": 1},
    sm={"max_threads": 512, "max_warps": 16, "max_ctas": 4, "regs": 16384, "smem": 16384},
    fetch={"miss_latency": 0},
    l1={"size": 4096, "unified": 0},
    l2={"size": 65536, "usable": 1.0, "slices": 2, "bandwidth": 64.0},
    dram={"bandwidth": 16.0, "channels": 2})
PRESETS = {p.name: p for p in (H100, A100, V100, TINY)}
ARCH = {"h100": 90, "a100": 80, "v100": 70}      # preset -> compute capability (Triton, ptxas)


def arch_of(spec) -> int:
    """The compute capability a preset stands for: h100 90, a100 80, v100 70; another spec the sm_NN
    its description names (presets made from a TOML file keep their base's), else 90."""
    if spec.name in ARCH:
        return ARCH[spec.name]
    m = re.search(r"sm_(\d+)", spec.description)
    return int(m.group(1)) if m else 90


def get_preset(name: str) -> GPUSpec:
    if not isinstance(name, str):
        raise ConfigError(f"a GPU is a preset name, a .toml file or a GPUSpec, got {name!r}")
    if name in PRESETS:
        return PRESETS[name]
    if name.endswith(".toml"):
        return load_toml(name)
    raise ConfigError(f"unknown GPU preset '{name}' (presets: {', '.join(PRESETS)}; or a .toml file)")


def apply_overrides(base: GPUSpec, overrides: dict, path: str = "") -> GPUSpec:
    """`overrides` (nested tables or dotted keys) applied to `base`; errors name the key path."""
    return override(base, overrides, path)


def load_toml(path: str) -> GPUSpec:
    """A TOML file: optional `base = "h100"`, then tables per unit overriding the preset:

        base = "h100"
        [l1]
        latency = 34
        [dram]
        bandwidth = 1400.0
    """
    try:
        with open(path, "rb") as f:
            data = tomllib.load(f)
    except FileNotFoundError:
        raise ConfigError(f"{path}: no such config file") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a directory, not a TOML file") from None
    except OSError as e:
        raise ConfigError(f"{path}: cannot read: {e.strerror}") from None
    except UnicodeDecodeError as e:
        raise ConfigError(f"{path}: byte 0x{e.object[e.start]:02x} at offset {e.start} is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"{path}: {e}") from None
    base_name = data.pop("base", "h100")
    if not isinstance(base_name, str) or base_name not in PRESETS:
        raise ConfigError(f"{path}: bad value for 'base': unknown preset {base_name!r}")
    try:
        spec = apply_overrides(PRESETS[base_name], data)
    except ConfigError as e:
        raise ConfigError(f"{path}: {e}") from None
    return dataclasses.replace(spec, name=spec.name + "+" + path.rsplit("/", 1)[-1])
