"""PTX fuzzing in CI: seeded mutants of the repository's PTX (validation/fuzz.py) loaded, decoded and
launched. Each must be accepted or refused with gpusim's own error; any other exception, a hang (a
per-mutant time limit) or a signal (the test process dies) is a bug. bench/bench_fuzz.py runs
thousands; `python bench/bench_fuzz.py --show SEED:INDEX` prints a failing mutant."""
import signal
from collections import Counter
from contextlib import contextmanager

import pytest

from validation import fuzz

SEED = 2024
LOADER_MUTANTS = 400
LAUNCH_MUTANTS = 40


@contextmanager
def time_limit(seconds: int, tag: str):
    def on_alarm(signum, frame):
        raise TimeoutError(f"mutant {tag} ran past {seconds} s")
    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def test_mutants_are_reproducible():
    a, b = fuzz.mutant(SEED, 17), fuzz.mutant(SEED, 17)
    assert a.data == b.data and a.source == b.source and a.ops == b.ops
    assert fuzz.mutant(SEED, 18).data != a.data


def test_corpus_holds_the_example_programs_ptx():
    names = {p.name for p in fuzz.corpus()}
    assert {"vecadd_cu.ptx", "reduce_cu.ptx", "poly_cu.ptx", "vecadd.ptx", "softmax.ptx"} <= names


def test_loader_mutants_are_accepted_or_refused_by_name(tmp_path):
    files = fuzz.corpus()
    counts, failures = Counter(), []
    for i in range(LOADER_MUTANTS):
        m = fuzz.mutant(SEED, i, files)
        with time_limit(10, m.tag):
            outcome, detail = fuzz.check_loader(m, tmp_path)
        counts[outcome] += 1
        if outcome == fuzz.FAILED:
            failures.append(f"{m.tag} {m.source.name} {'+'.join(m.ops)}: {detail}")
    assert not failures, "\n".join(failures)
    # the mutants reach past the lexer: many are refused, and many still load
    assert counts[fuzz.REFUSED] > LOADER_MUTANTS // 5 and counts[fuzz.ACCEPTED] > LOADER_MUTANTS // 10, counts


@pytest.mark.parametrize("mode", ["functional", "timing"])
def test_launch_mutants_run_or_are_refused_by_name(tmp_path, mode):
    files = fuzz.corpus()
    counts, failures = Counter(), []
    n = LAUNCH_MUTANTS if mode == "functional" else LAUNCH_MUTANTS // 4
    for i in range(n):
        m = fuzz.mutant(SEED + 1, i, files)
        with time_limit(60, m.tag):
            outcome, detail = fuzz.check_launch(m, tmp_path, mode=mode, budget=20_000)
        counts[outcome] += 1
        if outcome == fuzz.FAILED:
            failures.append(f"{m.tag} {m.source.name} {'+'.join(m.ops)}: {detail}")
    assert not failures, "\n".join(failures)
    assert counts[fuzz.ACCEPTED] > 0, counts
