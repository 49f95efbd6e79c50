"""racecheck and synccheck (gpusim.launch(..., check=...)): planted shared-memory races and barrier
misuse are found with the right kind, threads and lines; correct kernels, every example program
included, report nothing."""
import numpy as np
import pytest
from conftest import HEADER, run_ptx
from numba import cuda, float32, int32

import gpusim
from gpusim.errors import KernelFault, LaunchError
from programs import all_programs
from programs.ptx_programs import PTX_DIR, PTX_PROGRAMS


def _line(fn, text: str) -> int:
    """Source line of `text` inside the Python function fn."""
    import inspect
    src, start = inspect.getsourcelines(fn)
    hits = [start + k for k, s in enumerate(src) if text in s]
    assert len(hits) == 1, (text, hits)
    return hits[0]


def _src(report) -> tuple:
    return tuple(s[1] if s else None for s in report.source_lines)


def _only(reports, kind):
    found = [r for r in reports if r.kind == kind]
    assert found, f"no {kind} among {[str(r) for r in reports]}"
    return found


# ------------------------------------------------------------------ planted races
def tree_missing_barrier(a, out):
    buf = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]      # the tree step
        s //= 2                       # missing: cuda.syncthreads() (or syncwarp once s < 32)
    if t == 0:
        out[0] = buf[0]


def tree_with_syncwarp(a, out):
    buf = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    buf[t] = a[t]
    cuda.syncthreads()
    s = 32
    while s > 0:
        if t < s:
            buf[t] += buf[t + s]
        if s > 16:
            cuda.syncthreads()
        else:
            cuda.syncwarp()
        s //= 2
    if t == 0:
        out[0] = buf[0]


def test_racecheck_finds_raw_in_a_reduction_missing_its_barrier():
    a, out = np.arange(64, dtype=np.float32), np.zeros(1, np.float32)
    res = gpusim.launch(tree_missing_barrier, 1, 64, a, out, mode="functional", check="racecheck")
    raw = _only(res.hazards, "RAW")
    line = _line(tree_missing_barrier, "the tree step")
    assert all(_src(r) == (line, line) for r in raw)       # the step's write, then its read one step later
    r = raw[0]
    assert r.tool == "racecheck" and r.block == (0, 0, 0)
    assert r.threads[0] != r.threads[1] and r.threads[0][0] < 32 and r.threads[1][0] < 32   # lanes of warp 0
    assert r.address % 4 == 0 and r.address < 64 * 4
    assert {x.kind for x in res.hazards} == {"RAW"}
    assert res.sanitizer.race_total >= 16 + 8 + 4 + 2 + 1


def test_syncwarp_between_tree_steps_orders_the_lanes_of_a_warp():
    a, out = np.arange(64, dtype=np.float32), np.zeros(1, np.float32)
    res = gpusim.launch(tree_with_syncwarp, 1, 64, a, out, mode="functional", check=("racecheck", "synccheck"))
    assert out[0] == a.sum()
    assert res.sanitizer.reports == [] and res.sanitizer.race_total == 0 and res.sanitizer.sync_total == 0


def tile_reuse_without_second_barrier(a, out, ntiles):
    tile = cuda.shared.array(64, float32)
    t = cuda.threadIdx.x
    acc = float32(0)
    for k in range(ntiles):
        tile[t] = a[k * 64 + t]                 # load the next tile
        cuda.syncthreads()
        acc += tile[63 - t]                     # use the tile
        # missing: cuda.syncthreads() before the next load overwrites it
    out[t] = acc


def test_racecheck_finds_war_when_a_tile_is_reloaded_without_a_barrier():
    a = np.arange(64 * 3, dtype=np.float32) + 1
    out = np.zeros(64, np.float32)
    res = gpusim.launch(tile_reuse_without_second_barrier, 1, 64, a, out, np.int64(3), mode="functional",
                        check="racecheck")
    load = _line(tile_reuse_without_second_barrier, "load the next tile")
    use = _line(tile_reuse_without_second_barrier, "use the tile")
    war = _only(res.hazards, "WAR")
    assert _src(war[0]) == (use, load)
    t_read, t_write = war[0].threads
    assert t_read[0] // 32 != t_write[0] // 32 and t_read[0] == 63 - t_write[0]   # another warp's read
    assert {_src(r) for r in _only(res.hazards, "RAW")} == {(load, use)}


def two_writers(out):
    buf = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t % 32 == 0:
        buf[0] = t                               # threads 0 and 32 write different values
    cuda.syncthreads()
    out[t] = buf[0]


def same_value_writers(out):
    buf = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    buf[0] = 7                                   # every thread writes the same value
    cuda.syncthreads()
    out[t] = buf[0]


def test_racecheck_finds_waw_by_two_threads_and_names_both():
    out = np.zeros(64, np.int32)
    res = gpusim.launch(two_writers, 1, 64, out, mode="functional", check="racecheck")
    (waw,) = res.hazards
    line = _line(two_writers, "threads 0 and 32")
    assert waw.kind == "WAW" and _src(waw) == (line, line)
    assert waw.threads == ((0, 0, 0), (32, 0, 0)) and waw.address == 0 and waw.count == 1
    assert "WAW hazard at shared offset 0x0" in str(waw) and "thread (32, 0, 0)" in str(waw)


def test_writes_of_an_identical_value_are_not_a_hazard():
    out = np.zeros(64, np.int32)
    res = gpusim.launch(same_value_writers, 1, 64, out, mode="functional", check="racecheck")
    assert (out == 7).all() and res.hazards == []


def same_value_then_unsynced_read(out):
    buf = cuda.shared.array(1, int32)
    t = cuda.threadIdx.x
    if t == 32 or t == 0:
        buf[0] = 5                               # thread 0 changes the value, thread 32 writes it again
    if t == 64:
        out[0] = buf[0]                          # no barrier: may read before thread 0's write


def test_a_same_value_write_does_not_hide_the_earlier_unordered_write():
    out = np.zeros(1, np.int32)
    res = gpusim.launch(same_value_then_unsynced_read, 1, 96, out, mode="functional", check="racecheck")
    (r,) = res.hazards
    assert r.kind == "RAW" and r.threads == ((0, 0, 0), (64, 0, 0))
    assert _src(r) == (_line(same_value_then_unsynced_read, "thread 0 changes"),
                       _line(same_value_then_unsynced_read, "may read before"))


def shared_histogram_unsynced_read(vals, out):
    bins = cuda.shared.array(4, int32)
    t = cuda.threadIdx.x
    if t < 4:
        bins[t] = 0
    cuda.syncthreads()
    cuda.atomic.add(bins, vals[t], 1)            # atomics never race with atomics
    if t < 4:
        out[t] = bins[t]                         # missing: cuda.syncthreads() before reading the counts


def test_atomics_do_not_race_with_each_other_but_an_unsynced_read_of_them_does():
    vals = (np.arange(64) % 4).astype(np.int32)
    out = np.zeros(4, np.int32)
    res = gpusim.launch(shared_histogram_unsynced_read, 1, 64, vals, out, mode="functional", check="racecheck")
    add = _line(shared_histogram_unsynced_read, "atomics never race")
    read = _line(shared_histogram_unsynced_read, "missing: cuda.syncthreads() before")
    assert {(r.kind, _src(r)) for r in res.hazards} == {("RAW", (add, read))}
    writer, reader = res.hazards[0].threads
    assert writer[0] % 4 == reader[0] and writer != reader    # the last atomic on the bin the thread reads


# ------------------------------------------------------------------ planted barrier misuse
def barrier_in_divergent_branch(out):
    t = cuda.threadIdx.x
    if t < 16:
        cuda.syncthreads()                       # only half the warp
    out[t] = t


def test_synccheck_reports_a_barrier_in_a_divergent_branch_before_the_deadlock():
    out = np.zeros(32, np.int32)
    with pytest.raises(KernelFault) as e:
        gpusim.launch(barrier_in_divergent_branch, 1, 32, out, mode="functional", check="synccheck")
    (r,) = e.value.sanitizer.errors
    line = _line(barrier_in_divergent_branch, "only half the warp")
    assert r.kind == "divergent-warp" and _src(r) == (line, line)
    assert r.threads == ((0, 0, 0), (16, 0, 0))
    assert "deadlock" in str(e.value) and "divergent thread(s) in warp: 16 of the 32" in str(e.value)


SYNC_PTX = HEADER + """
.visible .entry k(.param .u64 out)
{{
    .reg .b32 %r<8>; .reg .b64 %rd<4>; .reg .pred %p<2>;
    mov.u32 %r1, %tid.x;
    setp.lt.u32 %p1, %r1, 32;
    @%p1 bra FIRST;
    {second}
    bra.uni DONE;
FIRST:
    {first}
DONE:
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r1;
    ret;
}}
"""


def _ptx_line(text: str, needle: str) -> int:
    hits = [k + 1 for k, s in enumerate(text.splitlines()) if needle in s]
    assert len(hits) == 1, (needle, hits)
    return hits[0]


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_synccheck_reports_syncthreads_in_both_arms_of_a_branch(mode):
    text = SYNC_PTX.format(first="bar.sync 0;   // warp 0", second="bar.sync 0;   // warp 1")
    out = np.zeros(64, np.int32)
    res = run_ptx(text, "k", 1, 64, out, mode=mode, gpu="tiny", check="synccheck")
    assert (out == np.arange(64)).all()          # it completes (exited threads aside, all arrive)
    (r,) = res.sanitizer.errors
    assert r.kind == "divergent-block"
    assert set(r.ptx_lines) == {_ptx_line(text, "// warp 0"), _ptx_line(text, "// warp 1")}


def test_synccheck_reports_mismatched_barrier_thread_counts():
    text = SYNC_PTX.format(first="bar.sync 1, 64;   // warp 0", second="bar.sync 1, 32;   // warp 1")
    out = np.zeros(64, np.int32)
    res = run_ptx(text, "k", 1, 64, out, mode="functional", check="synccheck")
    (r,) = res.sanitizer.errors
    assert r.kind == "count-mismatch"
    assert r.ptx_lines == (_ptx_line(text, "// warp 0"), _ptx_line(text, "// warp 1"))
    assert "counting 64" in str(r) and "counting 32" in str(r)


def test_synccheck_reports_a_thread_count_that_is_not_a_multiple_of_the_warp():
    text = SYNC_PTX.format(first="bar.sync 2, 48;   // warp 0", second="bar.sync 2, 48;   // warp 1")
    res = run_ptx(text, "k", 1, 64, np.zeros(64, np.int32), mode="functional", check="synccheck")
    assert {r.kind for r in res.sanitizer.errors} == {"invalid-count"}


def test_synccheck_names_both_barriers_when_warps_wait_at_different_ids():
    text = SYNC_PTX.format(first="bar.sync 0;   // warp 0", second="bar.sync 1;   // warp 1")
    with pytest.raises(KernelFault) as e:
        run_ptx(text, "k", 1, 64, np.zeros(64, np.int32), mode="functional", check="synccheck")
    (r,) = e.value.sanitizer.errors
    assert r.kind == "barrier-id-mismatch"
    assert set(r.ptx_lines) == {_ptx_line(text, "// warp 0"), _ptx_line(text, "// warp 1")}


def syncwarp_half_mask(out):
    t = cuda.threadIdx.x
    cuda.syncwarp(0xFFFF)                        # lanes 16-31 execute it too
    out[t] = t


def test_synccheck_reports_a_syncwarp_mask_that_excludes_the_lane():
    out = np.zeros(32, np.int32)
    res = gpusim.launch(syncwarp_half_mask, 1, 32, out, mode="functional", check="synccheck")
    (r,) = res.sanitizer.errors
    line = _line(syncwarp_half_mask, "lanes 16-31 execute")
    assert r.kind == "invalid-syncwarp-mask" and _src(r) == (line, line)
    assert r.threads[0] == (16, 0, 0) and r.count == 16 and "0x0000ffff" in str(r)


def test_syncwarp_by_the_lanes_its_mask_names_is_valid():
    from test_warp_ops import WARP_SYNC_IN_BRANCH
    out = np.zeros(64, np.uint32)
    res = run_ptx(WARP_SYNC_IN_BRANCH, "k", 1, 64, out, mode="functional", check="all")
    assert res.sanitizer.reports == [] and (out == np.arange(64)).all()


# ------------------------------------------------------------------ options
def test_check_option_accepts_names_lists_and_all_and_refuses_unknown_names():
    out = np.zeros(64, np.int32)
    for check, names in [("memcheck", ("memcheck",)), ("synccheck, racecheck", ("racecheck", "synccheck")),
                         (["racecheck"], ("racecheck",)), ("all", ("memcheck", "racecheck", "synccheck"))]:
        res = gpusim.launch(same_value_writers, 1, 64, out, mode="functional", check=check)
        assert res.sanitizer.checks == names
    assert gpusim.launch(same_value_writers, 1, 64, out, mode="functional").sanitizer is None
    with pytest.raises(LaunchError, match="unknown check 'racechek'"):
        gpusim.launch(same_value_writers, 1, 64, out, mode="functional", check="racechek")


def test_racecheck_in_timing_mode_finds_what_functional_mode_finds():
    out = np.zeros(64, np.int32)
    f = gpusim.launch(two_writers, 1, 64, out, mode="functional", check="racecheck")
    t = gpusim.launch(two_writers, 1, 64, out, mode="timing", gpu="tiny", check="racecheck")
    assert [(r.kind, r.pcs) for r in t.hazards] == [(r.kind, r.pcs) for r in f.hazards]


# ------------------------------------------------------------------ no false positives
PROGRAMS = all_programs()


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_example_program_is_clean_under_every_check(name):
    mod = PROGRAMS[name]
    results = []

    def launch(kernel, grid, block, *args):
        results.append(gpusim.launch(kernel, grid, block, *args, mode="functional", check="all"))
        return results[-1]

    mod.run(launch, mod.inputs(mod.SMALL_SIZE, seed=1))
    assert results
    for r in results:
        assert r.sanitizer.reports == [], [str(x) for x in r.sanitizer.reports]
        assert r.sanitizer.race_total == 0 and r.sanitizer.sync_total == 0


@pytest.mark.parametrize("name", sorted(PTX_PROGRAMS))
def test_nvcc_ptx_program_is_clean_under_every_check(name):
    from programs.argspec import parse_args
    spec = PTX_PROGRAMS[name]
    k = gpusim.load_ptx(str(PTX_DIR / spec["file"]))[spec["kernel"]]
    res = gpusim.launch(k, spec["grid"], spec["block"], *parse_args(spec["args"], seed=2), mode="functional",
                        check="all")
    assert res.sanitizer.reports == []


@pytest.mark.parametrize("name", ["reduce_shared", "sgemm_tiled", "histogram"])
def test_shared_memory_program_is_clean_in_timing_mode(name):
    mod = PROGRAMS[name]
    results = []
    mod.run(lambda *a: results.append(gpusim.launch(*a, gpu="tiny", check="all")) or results[-1],
            mod.inputs(mod.SMALL_SIZE, seed=1))
    assert all(r.sanitizer.reports == [] for r in results)
