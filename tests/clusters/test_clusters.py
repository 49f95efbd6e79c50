"""Thread-block clusters: the %cluster* registers, barrier.cluster, mapa and distributed shared memory,
in functional and timing mode. cluster_kernels.ptx is nvcc's (cluster_kernels.cu, -arch=sm_90 -ptx)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gpusim
from gpusim.errors import KernelFault, LaunchError

HERE = Path(__file__).resolve().parent
MOD = gpusim.load_ptx(HERE / "cluster_kernels.ptx")

HEAD = ".version 8.0\n.target sm_90\n.address_size 64\n"


def ptx(body: str, regs: str = ".reg .b32 %r<16>; .reg .b64 %rd<8>; .reg .pred %p<4>;") -> object:
    return gpusim.load_ptx(HEAD + f".visible .entry k(.param .u64 out) {{\n{regs}\n"
                           "ld.param.u64 %rd1, [out]; cvta.to.global.u64 %rd1, %rd1;\n" + body + "\nret;\n}")["k"]


def store_per_cta(value_reg: str) -> str:
    return (f"mov.u32 %r15, %ctaid.x; mul.wide.u32 %rd2, %r15, 4; add.s64 %rd2, %rd1, %rd2; "
            f"st.global.u32 [%rd2], {value_reg};")


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_each_cta_reads_its_neighbours_shared_memory_through_mapa(mode):
    out = np.zeros(8 * 128, np.int32)
    gpusim.launch(MOD["neighbour"], 8, 128, out, mode=mode)      # .reqnctapercluster 2: clusters of two
    b, t = np.divmod(np.arange(8 * 128), 128)
    assert (out == ((b % 2 + 1) % 2) * 1000 + t + 2 * 100000).all()


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_histogram_in_distributed_shared_memory_matches_numpy(mode):
    rng = np.random.default_rng(0)
    data = rng.integers(0, 1 << 20, 4096).astype(np.int32)
    bins = np.zeros(64, np.int32)
    gpusim.launch(MOD["dsm_hist"], 8, 64, bins, data, np.int32(data.size), np.int32(64), mode=mode, cluster=4,
                  shared_mem=16 * 4)
    assert (bins == np.bincount(data % 64, minlength=64)).all()


def test_cluster_registers_follow_the_launch_cluster_shape():
    k = ptx("mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %cluster_nctarank; mov.u32 %r3, %clusterid.y; "
            "mov.u32 %r4, %cluster_ctaid.y; mov.u32 %r5, %nclusterid.y; mov.u32 %r6, %is_explicit_cluster; "
            "mad.lo.s32 %r7, %r1, 10, %r2; mad.lo.s32 %r7, %r3, 100, %r7; mad.lo.s32 %r7, %r4, 1000, %r7; "
            "mad.lo.s32 %r7, %r5, 10000, %r7; mad.lo.s32 %r7, %r6, 100000, %r7;"
            "mov.u32 %r8, %ctaid.y; mov.u32 %r9, %nctaid.x; mov.u32 %r10, %ctaid.x; mad.lo.s32 %r11, %r8, %r9, %r10;"
            "mul.wide.u32 %rd2, %r11, 4; add.s64 %rd2, %rd1, %rd2; st.global.u32 [%rd2], %r7;")
    out = np.zeros(4 * 4, np.int32)
    gpusim.launch(k, (4, 4), 1, out, mode="functional", cluster=(2, 2, 1))
    y, x = np.divmod(np.arange(16), 4)
    rank = (x % 2) + 2 * (y % 2)
    assert (out == rank * 10 + 4 + (y // 2) * 100 + (y % 2) * 1000 + 2 * 10000 + 100000).all()
    plain = np.zeros(16, np.int32)
    gpusim.launch(k, (4, 4), 1, plain, mode="functional")             # no clusters: clusters of one
    assert (plain == 1 + y * 100 + 4 * 10000).all()


def test_cluster_wait_holds_every_cta_until_all_have_arrived():
    # rank 1 stores after a long loop; rank 0 reads it after the cluster barrier: it must see the store
    body = """
    mov.u32 %r1, %cluster_ctarank;
    setp.eq.u32 %p1, %r1, 1;
    @!%p1 bra ARRIVE;
    mov.u32 %r2, 0;
LOOP: add.u32 %r2, %r2, 1; setp.lt.u32 %p2, %r2, 2000; @%p2 bra LOOP;
    st.shared.u32 [buf], 77;
ARRIVE:
    barrier.cluster.arrive.release.aligned;
    barrier.cluster.wait.acquire.aligned;
    mov.u32 %r3, buf; mapa.shared::cluster.u32 %r4, %r3, 1; ld.shared::cluster.u32 %r5, [%r4];
    """ + store_per_cta("%r5")
    k = gpusim.load_ptx(HEAD + ".visible .entry k(.param .u64 out) {\n.reg .b32 %r<16>; .reg .b64 %rd<8>; "
                        ".reg .pred %p<4>; .shared .align 4 .b32 buf;\nld.param.u64 %rd1, [out]; "
                        "cvta.to.global.u64 %rd1, %rd1;\n" + body + "\nret;\n}")["k"]
    for mode in ("functional", "timing"):
        out = np.zeros(2, np.int32)
        gpusim.launch(k, 2, 32, out, mode=mode, cluster=2)
        assert (out == 77).all(), mode


def test_exited_threads_count_as_arrived_at_the_cluster_barrier():
    # half of each CTA's threads exit at once; the rest arrive and wait: the barrier must complete
    k = ptx("mov.u32 %r1, %tid.x; setp.ge.u32 %p1, %r1, 32; @%p1 bra DONE; barrier.cluster.arrive; "
            "barrier.cluster.wait; mov.u32 %r2, 5;" + store_per_cta("%r2") + " DONE:")
    out = np.zeros(4, np.int32)
    gpusim.launch(k, 4, 64, out, mode="functional", cluster=4)
    assert (out == 5).all()


def test_mapa_to_a_rank_outside_the_cluster_faults_with_the_line():
    k = ptx("mov.u32 %r1, 0; mapa.shared::cluster.u32 %r2, %r1, 2;" + store_per_cta("%r2"))
    with pytest.raises(KernelFault):
        gpusim.launch(k, 2, 32, np.zeros(2, np.int32), mode="functional", cluster=2)


def test_dsm_load_is_slower_than_a_local_shared_load_in_timing_mode():
    def chase(rank: int) -> int:
        body = f"""
        mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %tid.x; or.b32 %r3, %r1, %r2; setp.ne.u32 %p1, %r3, 0;
        barrier.cluster.arrive; barrier.cluster.wait;
        @%p1 bra OUT;
        mov.u32 %r4, buf; mapa.shared::cluster.u32 %r5, %r4, {rank};
        mov.u64 %rd3, %clock64;
        ld.shared::cluster.u32 %r6, [%r5]; add.u32 %r5, %r5, %r6; ld.shared::cluster.u32 %r6, [%r5];
        add.u32 %r5, %r5, %r6; ld.shared::cluster.u32 %r6, [%r5]; add.u32 %r5, %r5, %r6;
        mov.u64 %rd4, %clock64; sub.s64 %rd4, %rd4, %rd3; cvt.u32.u64 %r7, %rd4; st.global.u32 [%rd1], %r7;
OUT:    barrier.cluster.arrive; barrier.cluster.wait;
        """
        k = gpusim.load_ptx(HEAD + ".visible .entry k(.param .u64 out) {\n.reg .b32 %r<16>; .reg .b64 %rd<8>; "
                            ".reg .pred %p<4>; .shared .align 4 .b32 buf[4];\nld.param.u64 %rd1, [out]; "
                            "cvta.to.global.u64 %rd1, %rd1;\n" + body + "\nret;\n}")["k"]
        out = np.zeros(1, np.int32)
        gpusim.launch(k, 2, 32, out, cluster=2)
        return int(out[0])
    local, remote = chase(0), chase(1)
    assert remote - local >= 3 * gpusim.get_preset("h100").dsm.latency * 0.9


def test_timing_places_a_clusters_ctas_on_one_gpc():
    k = ptx("mov.u32 %r1, %smid;" + store_per_cta("%r1"))
    out = np.zeros(64, np.int32)
    spec = gpusim.get_preset("h100")
    gpusim.launch(k, 64, 32, out, cluster=8)
    g = spec.gigathread.gpcs
    bounds = [round(k * spec.n_sm / g) for k in range(1, g)]      # GPC k: SMs [bounds[k-1], bounds[k])
    gpcs = np.searchsorted(bounds, out, side="right").reshape(8, 8)
    assert (gpcs == gpcs[:, :1]).all()                   # every cluster within one GPC
    assert all(len(set(row)) == 8 for row in out.reshape(8, 8))      # on distinct SMs while they have room


def test_cluster_timing_is_deterministic():
    out = np.zeros(8 * 128, np.int32)
    a = gpusim.launch(MOD["neighbour"], 8, 128, out)
    b = gpusim.launch(MOD["neighbour"], 8, 128, out)
    assert a.cycles == b.cycles and a.metrics == b.metrics


@pytest.mark.parametrize("kw,msg", [
    ({"grid": 6, "cluster": 4}, "whole number of clusters"),
    ({"grid": 16, "cluster": 16}, "exceeds the 8"),
    ({"grid": 8, "cluster": 2, "gpu": "a100"}, "no clusters before sm_90"),
])
def test_launch_rejects_cluster_shapes_the_driver_refuses(kw, msg):
    k = ptx("mov.u32 %r1, 1;" + store_per_cta("%r1"))
    grid = kw.pop("grid")
    with pytest.raises(LaunchError, match=msg):
        gpusim.launch(k, grid, 32, np.zeros(grid, np.int32), mode="functional", **kw)


def test_kernel_compiled_for_clusters_rejects_another_cluster_shape():
    with pytest.raises(LaunchError, match="requires clusters of"):
        gpusim.launch(MOD["neighbour"], 8, 128, np.zeros(8 * 128, np.int32), mode="functional", cluster=4)


MULTICAST = HEAD + """
.visible .entry k(.param .u64 g, .param .u64 out) {
 .reg .b32 %r<20>; .reg .b64 %rd<10>; .reg .pred %p<4>; .reg .b16 %rs<2>;
 .shared .align 16 .b8 buf[64]; .shared .align 8 .b64 bar;
 ld.param.u64 %rd1, [g]; ld.param.u64 %rd2, [out]; cvta.to.global.u64 %rd2, %rd2;
 mov.u32 %r1, %cluster_ctarank; mov.u32 %r2, %tid.x;
 setp.eq.u32 %p1, %r2, 0;
 @%p1 mbarrier.init.shared::cta.b64 [bar], 1;
 @%p1 mbarrier.arrive.expect_tx.shared::cta.b64 _, [bar], 64;
 barrier.cluster.arrive; barrier.cluster.wait;
 or.b32 %r3, %r1, %r2; setp.eq.u32 %p2, %r3, 0;
 mov.u16 %rs1, MASK;
 @%p2 COPY;
WAIT: mbarrier.try_wait.parity.shared::cta.b64 %p3, [bar], 0; @!%p3 bra WAIT;
 setp.lt.u32 %p1, %r2, 16; @!%p1 bra DONE;
 shl.b32 %r4, %r2, 2; mov.u32 %r5, buf; add.u32 %r5, %r5, %r4; ld.shared.u32 %r6, [%r5];
 mov.u32 %r7, %ctaid.x; mad.lo.s32 %r8, %r7, 16, %r2; mul.wide.u32 %rd3, %r8, 4; add.s64 %rd3, %rd2, %rd3;
 st.global.u32 [%rd3], %r6;
DONE: barrier.cluster.arrive; barrier.cluster.wait;
 ret; }
"""


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_multicast_bulk_copy_lands_in_every_cta_of_its_mask_and_completes_their_mbarriers(mode):
    copy = ("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster "
            "[buf], [%rd1], 64, [bar], %rs1")
    k = gpusim.load_ptx(MULTICAST.replace("COPY", copy).replace("MASK", "15"))["k"]
    g = np.arange(16, dtype=np.int32) * 3 + 1
    out = np.zeros(4 * 16, np.int32)
    r = gpusim.launch(k, 4, 32, g, out, mode=mode, cluster=4)
    assert (out.reshape(4, 16) == g).all()
    if mode == "timing":
        assert r.metrics["gpusim__tma_bytes.sum"] == 64          # fetched once for the four CTAs


def test_bulk_copy_into_another_ctas_shared_memory_completes_its_mbarrier():
    # rank 0 copies its own (zeroed, then filled) buffer into rank 1's: cp.async.bulk.shared::cluster.shared::cta
    body = MULTICAST.replace("@%p2 COPY;", """
 @%p2 st.shared.v4.u32 [buf], {%r1, %r2, %r1, %r2};
 mov.u32 %r9, buf; mapa.shared::cluster.u32 %r10, %r9, 1; mov.u32 %r11, bar; mapa.shared::cluster.u32 %r12, %r11, 1;
 @%p2 st.shared.v4.u32 [buf], {7, 8, 9, 10};
 @%p2 cp.async.bulk.shared::cluster.shared::cta.mbarrier::complete_tx::bytes [%r10], [buf], 64, [%r12];
 setp.eq.u32 %p3, %r1, 0; @%p3 bra DONE;""").replace("MASK", "0")
    out = np.zeros(2 * 16, np.int32)
    gpusim.launch(gpusim.load_ptx(body)["k"], 2, 32, np.zeros(16, np.int32), out, mode="functional", cluster=2)
    assert list(out[16:20]) == [7, 8, 9, 10]
