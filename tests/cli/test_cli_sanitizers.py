"""`gpusim run ... --check`: a sanitizers section after the results; exit 0 and "0 hazards" when clean,
the reports and exit 1 when something is found (as compute-sanitizer fails the run), exit 2 and one
line for an unknown check."""
from conftest import HEADER

from gpusim.cli import main

RACY = HEADER + """
.shared .align 4 .b32 flag[1];
.visible .entry k(.param .u64 out)
{
    .reg .b32 %r<4>; .reg .b64 %rd<4>;
    mov.u32 %r1, %tid.x;
    st.shared.u32 [flag], %r1;          // every thread writes its own id: WAW
    bar.sync 0;
    ld.shared.u32 %r2, [flag];
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd1, %rd1;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def test_clean_program_prints_zero_hazards_and_exits_0(capsys):
    code = main(["run", "reduce_shared", "--small", "--mode", "functional", "--check", "racecheck,synccheck"])
    out = capsys.readouterr().out
    assert code == 0, out[-2000:]
    assert "racecheck: 0 hazards" in out and "synccheck: 0 errors" in out


def test_race_is_printed_with_both_threads_and_exits_1(tmp_path, capsys):
    f = tmp_path / "racy.ptx"
    f.write_text(RACY)
    code = main(["run", str(f), "--grid", "1", "--block", "64", "--arg", "u32[64]=zeros", "--mode",
                 "functional", "--check", "all"])
    out = capsys.readouterr().out
    assert code == 1
    assert "memcheck: always on" in out and "synccheck: 0 errors" in out
    assert "racecheck: 63 hazards (1 distinct)" in out
    assert "WAW hazard at shared offset 0x0" in out and "thread (0, 0, 0)" in out and "thread (1, 0, 0)" in out
    assert "racy.ptx:10" in out


def test_unknown_check_is_one_line_and_exit_2(capsys):
    code = main(["run", "vecadd", "--small", "--check", "racecheck,leakcheck"])
    err = capsys.readouterr().err
    assert code == 2 and err.strip().splitlines() == ["gpusim: error: unknown check 'leakcheck': choose from "
                                                      "memcheck, racecheck, synccheck (or all)"]
