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


def test_a_reasons_share_per_sass_opcode_is_of_all_samples_and_sums_to_the_reasons_share():
    rows = [{"op": "ISETP", "reasons": {"dispatch_stall": 3, "not_selected": 1}},
            {"op": "IMAD", "reasons": {"math_pipe_throttle": 4}},
            {"op": "ISETP", "reasons": {"dispatch_stall": 1, "wait": 1}}]
    share, ops = stall_lines.reason_by_opcode(rows, "dispatch_stall")
    assert share == pytest.approx(40.0) and ops == [("ISETP", pytest.approx(40.0))]
    assert stall_lines.reason_by_opcode(rows, "barrier") == (0.0, [])


def test_the_h100_samples_dispatch_stall_on_alu_instructions_beside_wide_imads_not_plain_ones():
    share = {}
    for case in ("int_imad_hi_throughput", "int_imad_throughput"):
        table = stall_lines.find_table(case)
        assert table is not None
        share[case], ops = stall_lines.reason_by_opcode(stall_lines.hw_rows(table), "dispatch_stall")
        if case == "int_imad_hi_throughput":
            assert {op for op, _ in ops[:2]} == {"ISETP", "LOP3"}
    assert share["int_imad_hi_throughput"] > 30 > 2 > share["int_imad_throughput"]
