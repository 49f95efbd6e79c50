"""Classify an instruction's dotted modifiers into decoded fields, per opcode family."""
from __future__ import annotations

from gpusim.isa import opcodes as oc
from gpusim.isa.tensorops import family_token
from gpusim.isa.types import TYPE_CODE, is_type

_FLAG = {"ftz": oc.FL_FTZ, "sat": oc.FL_SAT, "approx": oc.FL_APPROX, "hi": oc.FL_HI, "wide": oc.FL_WIDE,
         "lo": oc.FL_LO, "full": oc.FL_FULL, "cc": oc.FL_CC, "uni": oc.FL_UNI, "volatile": oc.FL_VOLATILE,
         "NaN": oc.FL_NAN, "relu": oc.FL_RELU, "shiftamt": oc.FL_SHIFTAMT, "clamp": oc.FL_CLAMP,
         "satfinite": oc.FL_SATFINITE}
# accepted and without functional effect (cache policy, memory-order and scope qualifiers; ld's .cg and .cv, which
# keep a load out of the L1, are read above)
_IGNORED = {"nc", "ca", "cg", "cs", "lu", "cv", "wb", "wt", "relaxed", "acquire", "release", "acq_rel",
            "sc", "weak", "sys", "gpu", "cta", "cluster", "aligned", "sync", "noftz", "mmio", "gl",
            "unified", "noinc", "sm", "oob", "nan", "xorsign", "abs", "level", "rn_satfinite"}
_SPACE_ALIAS = {"shared::cta": "shared", "shared::cluster": "shared", "global": "global", "shared": "shared",
                "local": "local", "const": "const", "param": "param", "param::entry": "param",
                "param::func": "param"}


class Mods:
    __slots__ = ("types", "rnd", "flags", "space", "vec", "sub", "sub2", "to", "unknown", "hopper")

    def __init__(self):
        self.types: list[int] = []
        self.rnd = 0
        self.flags = 0
        self.space = oc.SP_GENERIC
        self.vec = 1
        self.sub = 0       # family sub-operation: comparison, atomic op, shuffle mode, ...
        self.sub2 = 0      # second sub-operation: setp combining op, bar.red op
        self.to = False    # cvta.to
        self.unknown: list[str] = []
        self.hopper: list[str] = []     # wgmma shape and type tokens (gpusim/isa/hopper.py reads them)


def classify(base: str, mods: list[str]) -> Mods:
    m = Mods()
    for tok in mods:
        if _family(base, tok, m):
            continue
        if base == "ld" and tok in ("cg", "cv"):      # timing only: the load passes the L1 (gpusim/sm/lsu.py)
            m.flags |= oc.FL_L2ONLY
        elif is_type(tok):
            m.types.append(TYPE_CODE[tok])
        elif tok in oc.RND:
            m.rnd = oc.RND[tok]
        elif tok in _FLAG:
            m.flags |= _FLAG[tok]
        elif tok in _SPACE_ALIAS:
            m.space = oc.SPACE[_SPACE_ALIAS[tok]]
        elif tok in ("v2", "v4", "v8"):
            m.vec = int(tok[1:])
        elif tok in _IGNORED or tok.startswith(("L1::", "L2::")):
            pass
        else:
            m.unknown.append(tok)
    return m


def _family(base: str, tok: str, m: Mods) -> bool:
    """Family-specific modifiers; True when consumed."""
    if base in ("mbarrier", "wgmma", "cpbulk"):
        return _hopper(base, tok, m)
    if family_token(base, tok):        # cp.async, ldmatrix, mma, ...: tensorops.py checks their grammar
        return True
    if base == "prmt" and tok in oc.PRMT:
        m.sub = oc.PRMT[tok]
        return True
    if base in ("setp", "set", "slct") and tok in oc.CMP and not (base == "slct" and tok in oc.BOOL):
        m.sub = oc.CMP[tok]
        return True
    if base in ("setp", "set") and tok in oc.BOOL:
        m.sub2 = oc.BOOL[tok]
        return True
    if base in ("atom", "red") and tok in oc.ATOM:
        m.sub = oc.ATOM[tok]
        return True
    if base == "shfl" and tok in oc.SHFL:
        m.sub = oc.SHFL[tok]
        return True
    if base == "vote" and tok in oc.VOTE:
        m.sub = oc.VOTE[tok]
        return True
    if base == "match" and tok in oc.MATCH:
        m.sub = oc.MATCH[tok]
        return True
    if base == "shf" and tok in oc.SHF:
        m.sub = oc.SHF[tok]
        return True
    if base == "shf" and tok == "wrap":     # the default mode; accept.py requires .wrap or .clamp
        return True
    if base == "redux" and tok in oc.REDUX:
        m.sub = oc.REDUX[tok]
        return True
    if base in ("bar", "barrier"):
        if tok == "cluster":
            m.sub = oc.BAR_CLUSTER_ARRIVE       # barrier.cluster.arrive | .wait (sm/cluster.py)
            return True
        if m.sub in (oc.BAR_CLUSTER_ARRIVE, oc.BAR_CLUSTER_WAIT):
            if tok == "wait":
                m.sub = oc.BAR_CLUSTER_WAIT
            return tok in ("arrive", "wait", "release", "relaxed", "acquire", "aligned")
        if tok in oc.BAR:
            if m.sub != 3:       # bar.warp.sync stays a warp barrier: `.sync` follows `.warp`
                m.sub = oc.BAR[tok]
            return True
        if tok in oc.BARRED:
            m.sub2 = oc.BARRED[tok]
            return True
        if tok == "warp":
            m.sub = 3     # bar.warp.sync: a no-op under lock-step warps
            return True
    if base == "testp" and tok in oc.TESTP:
        m.sub = oc.TESTP[tok]
        return True
    if base == "prefetch" and tok in ("L1", "L2", "tensormap"):     # prefetch{.space}.level [a], prefetch.tensormap
        return True
    if base == "cvta" and tok == "to":
        m.to = True
        return True
    if base in ("membar", "fence") and tok in ("gl", "cta", "sys", "proxy", "async", "alias", "mbarrier_init"):
        return True
    return False


def _hopper(base: str, tok: str, m: Mods) -> bool:
    if base == "mbarrier":
        if tok == "expect_tx" and m.sub in (oc.MBAR["arrive"], oc.MBAR["arrive_drop"]):
            m.sub2 |= oc.MB_EXPECT_TX
        elif tok in oc.MBAR:
            m.sub = oc.MBAR[tok]
        elif tok == "parity":
            m.sub2 |= oc.MB_PARITY
        elif tok == "noinc":
            m.sub2 |= oc.MB_NOINC
        else:
            return False
        return True
    if base == "wgmma":
        if tok in oc.WGMMA:
            m.sub = oc.WGMMA[tok]
        elif tok.startswith("m64n") or tok in ("f32", "f16", "bf16", "tf32", "e4m3", "e5m2", "s8", "u8", "s32",
                                                "satfinite"):
            m.hopper.append(tok)
        else:
            return False
        return True
    if tok in oc.CPBULK:
        m.sub = oc.CPBULK[tok]
        return True
    if tok == "multicast::cluster":
        m.sub2 |= oc.CB_MULTICAST
        return True
    if tok in ("1d", "2d", "3d", "4d", "5d"):
        m.hopper.append(tok)
        return True
    return tok in ("read", "bulk_group", "mbarrier::complete_tx::bytes", "shared::cluster", "shared::cta", "tile")
