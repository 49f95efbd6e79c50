"""Differential testing of gpusim against numba's CUDA simulator on generated kernels.

Each case runs (a) on gpusim in functional mode, (b) on gpusim in timing mode (tiny preset) and (c) on
numba's simulator (a worker process, tests/fuzz/cudasim_worker.py, running a whole batch). Any
difference in the outputs (ints exactly, floats bit for bit, any NaN equal to any NaN) or a gpusim
error on a kernel the simulator runs is a finding. `shrink` minimises a finding's source by deleting
statements while the difference persists.
"""
from __future__ import annotations

import pickle
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from kernelgen import Case, compile_kernel, generate  # noqa: E402

OUTPUTS = (2, 3, 4)          # out_i, out_f, acc
NAMES = {2: "out_i", 3: "out_f", 4: "acc"}


@dataclass
class Finding:
    seed: int
    mode: str                # "functional" or "timing"
    detail: str
    source: str


def start_cudasim(cases: list[Case], workdir: Path):
    """Start the simulator on `cases` in the background; returns a handle for `finish_cudasim`."""
    batch = workdir / f"batch{id(cases)}.pkl"
    out = workdir / f"out{id(cases)}.npz"
    payload = [dict(seed=c.seed, source=c.source, grid=c.grid, block=c.block, args=c.args()) for c in cases]
    batch.write_bytes(pickle.dumps(payload))
    proc = subprocess.Popen([sys.executable, str(HERE / "cudasim_worker.py"), str(batch), str(out)],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return proc, out, len(cases)


def finish_cudasim(handle, timeout=3600) -> list:
    """Per case: the list of argument arrays after the kernel, or an error string."""
    proc, out, n = handle
    log, _ = proc.communicate(timeout=timeout)
    if proc.returncode != 0:
        raise RuntimeError(f"cudasim worker failed ({proc.returncode}):\n{log[-3000:]}")
    data = np.load(out)
    results = []
    for i in range(n):
        if f"{i}.error" in data.files:
            results.append(str(data[f"{i}.error"]))
        else:
            results.append([data[f"{i}.{k}"] for k in range(5)])
    return results


def run_cudasim(cases: list[Case]) -> list:
    with tempfile.TemporaryDirectory() as tmp:
        return finish_cudasim(start_cudasim(cases, Path(tmp)))


def run_gpusim(case: Case, mode: str, ns: dict | None = None):
    """The kernel's arguments after one gpusim launch, or an error string. Pass the same `ns` (from
    compile_kernel) for both modes to compile the kernel once."""
    import gpusim
    try:
        ns = ns or compile_kernel(case.source, f"<case {case.seed}>")
        args = case.args()
        opts = {"gpu": "tiny"} if mode == "timing" else {}
        gpusim.launch(ns["kernel"], case.grid, case.block, *args, mode=mode, **opts)
        return args
    except Exception as e:  # noqa: BLE001  (any failure is a finding when the simulator ran it)
        return f"{type(e).__name__}: {e}"


def differences(ours, theirs) -> str | None:
    """None if the two runs agree; else what differs (first elements)."""
    if isinstance(theirs, str):
        return None                      # the simulator could not run it: nothing to compare
    if isinstance(ours, str):
        return f"gpusim failed: {ours[:400]}"
    out = []
    for k in OUTPUTS:
        a, b = np.asarray(ours[k]), np.asarray(theirs[k])
        if a.dtype.kind == "f":
            same = (a.view(np.int32) == b.view(np.int32)) | (np.isnan(a) & np.isnan(b))
        else:
            same = a == b
        if not same.all():
            bad = np.flatnonzero(~same)
            out.append(f"{NAMES[k]}: {bad.size} differ, at {bad[:6].tolist()}: gpusim {a[bad[:6]].tolist()} "
                       f"cudasim {b[bad[:6]].tolist()}")
    return "; ".join(out) or None


def check(cases: list[Case], modes=("functional", "timing"), workdir: Path | None = None):
    """Run `cases` everywhere; returns (findings, number the simulator could not run, their errors)."""
    with tempfile.TemporaryDirectory() as tmp:
        handle = start_cudasim(cases, Path(workdir or tmp))
        ours = []
        for c in cases:                  # overlaps with the simulator
            ns = compile_kernel(c.source, f"<case {c.seed}>")
            ours.append({m: run_gpusim(c, m, ns) for m in modes})
        theirs = finish_cudasim(handle)
    findings, sim_errors = [], []
    for case, mine, ref in zip(cases, ours, theirs):
        if isinstance(ref, str):
            sim_errors.append((case.seed, ref))
            continue
        for mode in modes:
            diff = differences(mine[mode], ref)
            if diff:
                findings.append(Finding(case.seed, mode, diff, case.source))
    return findings, sim_errors


# ---- shrinking -------------------------------------------------------------------------------
PROTECTED = ("def ", "cuda.syncthreads()", "sh[tid] =", "+= 1", "import ", "@cuda.jit", "out_i[gid", "out_f[gid")


def _indent(line):
    return len(line) - len(line.lstrip(" "))


def _candidates(lines):
    """Sources with one statement (a line and the lines indented under it) deleted."""
    body_start = max(i for i, line in enumerate(lines) if "= fin[" in line or "= np.int64(ain[" in line)
    for i in range(len(lines) - 1, body_start, -1):
        line = lines[i]
        if not line.strip() or any(p in line for p in PROTECTED) or line.lstrip().startswith("else:"):
            continue
        end = i + 1
        while end < len(lines) and lines[end].strip() and _indent(lines[end]) > _indent(line):
            end += 1
        if any(p in text for text in lines[i:end] for p in ("cuda.syncthreads()",)):
            continue
        new = lines[:i] + lines[end:]
        # an if/else whose branch became empty gets a pass
        if i < len(new) and new[i].lstrip().startswith("else:") and (i == 0 or new[i - 1].rstrip().endswith(":")):
            new = new[:i] + [" " * (_indent(new[i]) + 4) + "pass"] + new[i:]
        if i > 0 and new[i - 1].rstrip().endswith(":") and (i >= len(new) or _indent(new[i]) <= _indent(new[i - 1])):
            new = new[:i] + [" " * (_indent(new[i - 1]) + 4) + "pass"] + new[i:]
        text = "\n".join(new) + "\n"
        try:
            compile(text, "<shrink>", "exec")
        except SyntaxError:
            continue
        yield text


def shrink(case: Case, mode: str, rounds: int = 300, batch: int = 400) -> tuple[Case, str]:
    """A smaller case whose gpusim (`mode`) run still differs from the simulator's; and that difference."""
    best = case
    detail = None
    for _ in range(rounds):
        lines = best.source.rstrip("\n").split("\n")
        cands = [Case(case.seed, src, case.grid, case.block, case.inputs) for src in _candidates(lines)][:batch]
        if not cands:
            break
        refs = run_cudasim(cands)
        for cand, ref in zip(cands, refs):
            if isinstance(ref, str):
                continue
            diff = differences(run_gpusim(cand, mode), ref)
            if diff:
                best, detail = cand, diff
                break
        else:
            break
    if detail is None:
        detail = differences(run_gpusim(best, mode), run_cudasim([best])[0])
    return best, detail


def gen_cases(seeds, opts=None) -> list[Case]:
    return [generate(s, opts) for s in seeds]
