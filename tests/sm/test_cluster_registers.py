"""Cluster special registers when every CTA is a cluster of one (gpusim launches no larger clusters)."""
import numpy as np
from conftest import HEADER

import gpusim


def test_cluster_special_registers_describe_each_cta_as_a_cluster_of_one():
    """Without cluster launches every CTA is a cluster of one: %clusterid is %ctaid, %nclusterid is %nctaid,
    the CTA is rank 0 of 1 (kernels that require larger clusters are refused at load)."""
    names = ["clusterid.x", "clusterid.y", "nclusterid.x", "nclusterid.y", "cluster_ctaid.x", "cluster_nctaid.y",
             "cluster_ctarank", "cluster_nctarank", "is_explicit_cluster"]
    lines = [HEADER, ".visible .entry k(.param .u64 out)", "{", ".reg .u32 %v, %c; .reg .u64 %o, %x;",
             "ld.param.u64 %o, [out]; mov.u32 %c, %ctaid.y; mad.lo.u32 %c, %c, 3, 0; mov.u32 %v, %ctaid.x;",
             f"add.u32 %c, %c, %v; mul.wide.u32 %x, %c, {4 * len(names)}; add.u64 %o, %o, %x;"]
    for j, n in enumerate(names):
        lines.append(f"mov.u32 %v, %{n}; st.global.u32 [%o+{4 * j}], %v;")
    k = gpusim.load_ptx("\n".join(lines + ["ret;", "}", ""]))["k"]
    for mode in ("functional", "timing"):
        out = np.zeros((6, len(names)), np.uint32)
        gpusim.launch(k, (3, 2), 32, out, mode=mode, gpu="tiny")
        want = [[x, y, 3, 2, 0, 1, 0, 1, 0] for y in range(2) for x in range(3)]
        assert out.tolist() == want
