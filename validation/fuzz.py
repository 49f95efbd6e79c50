"""PTX fuzzing: seeded mutations of the repository's PTX files, run at the loader and at launch.

A mutant is a function of (seed, index) only: `mutant(seed, i)` picks a corpus file and applies one
to three mutations (byte flips, token deletions/duplications/swaps, numbers replaced by huge,
negative or float values, line deletions/swaps/duplications, truncation, non-UTF-8 bytes). Running
it must end in one of two ways: accepted (it loads, or it runs) or refused with one of gpusim's own
errors (GpusimError). Any other exception, a hang or a signal is a gpusim bug.

Used by tests/isa/test_fuzz_loader.py (a few hundred, in CI) and bench/bench_fuzz.py (thousands).
Replay one mutant: `python bench/bench_fuzz.py --show SEED:INDEX`.
"""
from __future__ import annotations

import random
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS_DIRS = (ROOT / "programs" / "ptx", ROOT / "tests" / "data" / "ptx")

_TOKEN = re.compile(rb"%?[A-Za-z_$.][\w$.%]*|0[xXfFdD][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?|\S")
_NUMBER = re.compile(rb"(?<![\w%$.])(?:0[xX][0-9a-fA-F]+|\d+(?:\.\d*)?(?:[eE][+-]?\d+)?)")
NUMBERS = [b"0", b"-1", b"1", b"4294967295", b"4294967296", b"9223372036854775807", b"18446744073709551615",
           b"18446744073709551616", b"340282366920938463463374607431768211456", b"99999999999999999999999999",
           b"-2147483648", b"-9223372036854775808", b"1e400", b"1.5", b"0.0", b"1e-400", b"3.4e38", b"1e39",
           b"0xFFFFFFFFFFFFFFFF", b"0x10000000000000000", b"0f7F800000", b"0dFFFFFFFFFFFFFFFF", b"65536",
           b"1073741824", b"1099511627776", b"-65536", b"7" * 5000]
BAD_BYTES = [b"\xff", b"\xc3\x28", b"\x80", b"\xed\xa0\x80", b"\x00", b"\xfe\xff"]


def corpus() -> list[Path]:
    """Every PTX file the fuzzer mutates, in a fixed order."""
    return sorted(p for d in CORPUS_DIRS for p in d.glob("*.ptx"))


def _lines(data: bytes) -> list[bytes]:
    return data.split(b"\n")


def _tokens(data: bytes) -> list[re.Match]:
    return list(_TOKEN.finditer(data))


def _splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    return data[:start] + new + data[end:]


def m_byte_flip(rng, data):
    if not data:
        return data
    pos = rng.randrange(len(data))
    return _splice(data, pos, pos + 1, bytes([rng.randrange(256)]))


def m_bad_bytes(rng, data):
    pos = rng.randrange(len(data) + 1)
    return _splice(data, pos, pos, rng.choice(BAD_BYTES))


def m_token_delete(rng, data):
    toks = _tokens(data)
    if not toks:
        return data
    t = rng.choice(toks)
    return _splice(data, t.start(), t.end(), b"")


def m_token_duplicate(rng, data):
    toks = _tokens(data)
    if not toks:
        return data
    t = rng.choice(toks)
    return _splice(data, t.start(), t.end(), t.group() + b" " + t.group())


def m_token_replace(rng, data):
    """A token replaced by another token of the same file (a register by a symbol, a type by a type...)."""
    toks = _tokens(data)
    if len(toks) < 2:
        return data
    t, other = rng.choice(toks), rng.choice(toks)
    return _splice(data, t.start(), t.end(), other.group())


def m_number(rng, data):
    nums = list(_NUMBER.finditer(data))
    if not nums:
        return data
    t = rng.choice(nums)
    return _splice(data, t.start(), t.end(), rng.choice(NUMBERS))


def m_line_delete(rng, data):
    lines = _lines(data)
    del lines[rng.randrange(len(lines))]
    return b"\n".join(lines)


def m_line_swap(rng, data):
    lines = _lines(data)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines))
    lines[a], lines[b] = lines[b], lines[a]
    return b"\n".join(lines)


def m_line_duplicate(rng, data):
    lines = _lines(data)
    a, b = rng.randrange(len(lines)), rng.randrange(len(lines) + 1)
    lines.insert(b, lines[a])
    return b"\n".join(lines)


def m_truncate(rng, data):
    return data[:rng.randrange(len(data) + 1)]


MUTATIONS = (m_byte_flip, m_bad_bytes, m_token_delete, m_token_duplicate, m_token_replace, m_number,
             m_number, m_line_delete, m_line_swap, m_line_duplicate, m_truncate)


@dataclass
class Mutant:
    seed: int
    index: int
    source: Path
    data: bytes
    ops: list

    @property
    def tag(self) -> str:
        return f"{self.seed}:{self.index}"


def mutant(seed: int, index: int, files: list[Path] | None = None) -> Mutant:
    """Mutant `index` of run `seed`: the same bytes on every machine and every run."""
    files = files or corpus()
    rng = random.Random(f"gpusim-fuzz:{seed}:{index}")
    src = files[rng.randrange(len(files))]
    data = src.read_bytes()
    ops = []
    for _ in range(rng.choice((1, 1, 2, 3))):
        op = rng.choice(MUTATIONS)
        data = op(rng, data)
        ops.append(op.__name__[2:])
    return Mutant(seed, index, src, data, ops)


# ------------------------------------------------------------------------------------ running one
ACCEPTED, REFUSED, FAILED = "accepted", "refused", "failed"


def load_mutant(m: Mutant, tmpdir: Path):
    """Parse the mutant from a file (as `gpusim run FILE.ptx` does) and decode every kernel."""
    from gpusim.kernels import load_ptx
    path = tmpdir / m.source.name
    path.write_bytes(m.data)
    mod = load_ptx(str(path))
    for name in mod:
        mod.kernels[name].decoded   # noqa: B018  (decoding is what is tested)
    return mod


def check_loader(m: Mutant, tmpdir: Path) -> tuple[str, str]:
    """(outcome, detail) of loading and decoding the mutant."""
    from gpusim.errors import GpusimError
    try:
        load_mutant(m, tmpdir)
    except GpusimError as e:
        return REFUSED, str(e).splitlines()[0]
    except Exception as e:  # noqa: BLE001  (anything else is a bug: that is what is looked for)
        return FAILED, f"{type(e).__name__}: {e}"[:300]
    return ACCEPTED, ""


class _Stop(Exception):
    pass


def _launch_plan(m: Mutant):
    """(run(launcher), entry name, signature or None) for the program the mutant's source belongs to."""
    from programs import all_programs
    from programs.argspec import parse_args
    from programs.ptx_programs import PTX_PROGRAMS
    for spec in PTX_PROGRAMS.values():
        if spec["file"] == m.source.name:
            def run_ptx(launcher, spec=spec):
                launcher(None, spec["grid"], spec["block"], *parse_args(spec["args"], 0))
            return run_ptx, spec["kernel"], None
    for mod in all_programs().values():
        for fn, sig in mod.KERNELS:
            if fn.__name__ + ".ptx" == m.source.name:
                def run_prog(launcher, mod=mod, fn=fn):
                    mod.run(lambda k, *a: launcher(None if k is fn else k, *a), mod.inputs(mod.SMALL_SIZE, seed=0))
                return run_prog, fn.__name__, tuple(sig)
    raise LookupError(f"no program for {m.source.name}")


def check_launch(m: Mutant, tmpdir: Path, mode: str = "functional", budget: int = 20_000) -> tuple[str, str]:
    """(outcome, detail) of loading the mutant and launching it on `tiny` with the program's inputs,
    within `budget` warp instructions per launch."""
    import gpusim
    from gpusim.errors import GpusimError
    run, entry, sig = _launch_plan(m)
    try:
        mod = load_mutant(m, tmpdir)
        names = list(mod)
        if entry not in names and len(names) != 1:
            return REFUSED, f"harness: no kernel '{entry}'"
        k = mod.kernels[entry if entry in names else names[0]]
        k.signature = sig
    except GpusimError as e:
        return REFUSED, str(e).splitlines()[0]
    except Exception as e:  # noqa: BLE001
        return FAILED, f"{type(e).__name__}: {e}"[:300]
    outcome = []

    def launcher(kernel, grid, block, *args):
        try:
            return gpusim.launch(k if kernel is None else kernel, grid, block, *args, gpu="tiny", mode=mode,
                                 max_instructions=budget)
        except GpusimError as e:
            outcome.append((REFUSED, str(e).splitlines()[0]))
        except Exception as e:  # noqa: BLE001
            outcome.append((FAILED, f"{type(e).__name__}: {e}"[:300]))
        raise _Stop

    try:
        run(launcher)
    except _Stop:
        return outcome[0]
    except Exception:  # noqa: BLE001  (the program's own host code on a mutant's garbage output)
        pass
    return ACCEPTED, ""
