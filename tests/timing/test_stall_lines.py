"""validation/stall_lines.py: the H100's per-SASS stall samples land on the PTX lines gpusim charges."""
import pytest

from validation import stall_lines


def test_samples_of_each_sass_instruction_go_to_the_ptx_line_its_aligned_twin_came_from():
    rows = [{"op": op, "sass": op, "reasons": {"long_scoreboard": n}, "inst": 10 * n + 5} for op, n in
            [("LDC", 1), ("S2R", 2), ("LDG", 0), ("FADD", 7), ("EXIT", 0), ("BRA", 3)]]
    # the tagged compile: the same code, but one extra instruction (an IMAD) and no trailing BRA
    lines = [("LDC", 10), ("S2R", 11), ("IMAD", 11), ("LDG", 12), ("FADD", 13), ("EXIT", 14)]
    per, inst, unmatched = stall_lines.hw_per_line(rows, lines)
    assert per[10]["long_scoreboard"] == 1 and per[11]["long_scoreboard"] == 2 and per[13]["long_scoreboard"] == 7
    assert inst[10] == 15 and inst[12] == 5 and inst[13] == 75      # the executions go along with the samples
    assert unmatched == 1          # the BRA after EXIT has no twin


def test_tri_sum_puts_the_h100s_barrier_wait_on_the_shared_load_after_its_barrier(capsys):
    pytest.importorskip("triton")
    from gpusim import ptxas, sassmap
    if ptxas.find() is None or sassmap.find_nvdisasm() is None:
        pytest.skip("needs ptxas and nvdisasm")
    assert stall_lines.main(["tri_sum", "--top", "3"]) == 0
    out = capsys.readouterr().out
    top = [ln for ln in out.splitlines() if "|" in ln][1:]
    assert len(top) == 3 and "long_scoreboard" in top[0]
    assert any("ld.shared" in ln and "barrier:" in ln.split("|")[1] for ln in top)
