"""Hopper instructions and variants gpusim does not implement are refused at load time, naming the
instruction and why (never decoded into something silently different)."""
import pytest

import gpusim
from gpusim.errors import UnsupportedInstruction
from gpusim.isa.coverage import example_kernel

DECL = ".shared .align 8 .b64 bar; .reg .b64 %D; .reg .f32 %x<4>;\n"
REFUSED = [
    ("cp.async.bulk.tensor.2d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes [bar], [%A, {%i, %i}], [bar];",
     ".im2col mode"),
    ("cp.async.bulk.prefetch.L2.global [%A], 64;", "cp.async.bulk.prefetch"),
    ("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%A], [bar], 16;", "cp.reduce.async.bulk"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f16.e4m3.e4m3 {%u, %u}, %D, %D, 1, 1, 1;", ".f16 accumulator"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.bf16 {%x0, %x1, %x2, %x3}, %D, %D, 1, 1, 1, 0, 0;",
     "does not take .f16 with .bf16"),
    ("wgmma.mma_async.sync.aligned.m64n8k32.f32.e4m3.s8 {%x0, %x1, %x2, %x3}, %D, %D, 1, 1, 1;",
     "does not take .e4m3 with .s8"),
    ("wgmma.mma_async.sync.aligned.m64n40k32.s32.s8.s8 {%i, %i}, %D, %D, 0;", "not defined for .s8"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.tf32.tf32 {%x0, %x1, %x2, %x3}, %D, %D, 1, 1, 1;",
     "not defined for .tf32"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16.satfinite {%x0, %x1, %x2, %x3}, %D, %D, 1, 1, 1, 0, 0;",
     ".satfinite is only defined for integer"),
    ("wgmma.mma_async.sync.aligned.m64n8k16.f16.f16.f16 {%u, %u}, %D, %D, 1, 1, 1, 0, 0;", ".f16 accumulator"),
    ("wgmma.mma_async.sp.sync.aligned.m64n8k32.f32.f16.f16 {%x0, %x1, %x2, %x3}, %D, %D, %D, 0, 1, 1, 1, 0, 0;",
     ".sp"),
    ("wgmma.fence;", ".sync.aligned"),
    ("mbarrier.arrive.noComplete.shared.b64 %D, [bar], 2;", ".noComplete"),
    ("mov.u32 %u, %clusterid;", "%clusterid"),          # the vector form; %clusterid.x etc. are modelled
    ("st.async.shared::cluster.mbarrier::complete_tx::bytes.u32 [bar], %u, [bar];", "async"),
]


@pytest.mark.parametrize("line, why", REFUSED, ids=[r[0].split()[0] for r in REFUSED])
def test_unimplemented_hopper_variant_is_refused_by_name(line, why):
    with pytest.raises(UnsupportedInstruction) as e:
        _ = gpusim.load_ptx(example_kernel(DECL + line, "b32"))["k"].decoded
    assert why in str(e.value)


def test_prefetch_tensormap_is_accepted_as_a_hint():
    d = gpusim.load_ptx(example_kernel("prefetch.tensormap [%A]; prefetch.param.tensormap [%A];", "b32"))["k"].decoded
    from gpusim.isa import opcodes as oc
    assert (d.ins[:, oc.F_OP] == oc.OP["nop"]).sum() == 2        # both decode as no-ops, nothing refused


@pytest.mark.parametrize("directive", [".reqnctapercluster 2, 1, 1", ".explicitcluster", ".reqnctapercluster 1, 1, 1",
                                       ".maxclusterrank 8"])
def test_kernel_compiled_for_clusters_loads(directive):
    head = ".visible .entry k(.param .u64 out)"
    text = example_kernel("", "b32").replace(head + "\n", head + directive + "\n")
    assert gpusim.load_ptx(text)["k"].decoded.n > 0


def test_explicit_cluster_kernel_launched_without_cluster_dims_is_refused():
    from gpusim.errors import LaunchError
    head = ".visible .entry k(.param .u64 out)"
    k = gpusim.load_ptx(example_kernel("", "b32").replace(head + "\n", head + ".explicitcluster\n"))["k"]
    with pytest.raises(LaunchError, match="launch it with cluster="):
        gpusim.launch(k, 2, 32, 0, mode="functional")
