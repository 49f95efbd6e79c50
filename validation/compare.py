"""Compare a program's outputs with its reference (shared by the validation scripts; imports no numba)."""
import numpy as np


def compare(outputs, expected, rtol, atol):
    """Problems found comparing outputs with expected (empty when they match)."""
    problems = []
    if set(outputs) != set(expected):
        problems.append(f"output names {sorted(outputs)} != reference names {sorted(expected)}")
    for name in sorted(set(outputs) & set(expected)):
        got, want = np.asarray(outputs[name]), np.asarray(expected[name])
        if got.shape != want.shape or got.dtype != want.dtype:
            got_type, want_type = f"{got.dtype}{list(got.shape)}", f"{want.dtype}{list(want.shape)}"
            problems.append(f"{name}: got {got_type}, expected {want_type}")
            continue
        ok = np.array_equal(got, want) if rtol == 0 and atol == 0 else np.allclose(got, want, rtol, atol)
        if not ok:
            err = np.abs(got.astype(np.float64) - want.astype(np.float64))
            where = np.unravel_index(np.argmax(err), err.shape)
            bad = ~np.isclose(got, want, rtol, atol) if rtol or atol else got != want
            problems.append(
                f"{name}: {np.count_nonzero(bad)} of {got.size} elements differ (rtol={rtol}, atol={atol}); "
                f"worst at {tuple(int(i) for i in where)}: got {got[where]}, expected {want[where]}"
            )
    return problems
