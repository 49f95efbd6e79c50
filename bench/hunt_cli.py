"""Plausible command-line mistakes, each run as a new user would (`gpusim ...` in a fresh process).

    python bench/hunt_cli.py            # prints one row per mistake; exit 1 if any printed a traceback

A mistake must end with exit status 2 and one line on stderr (`gpusim: error: ...`); a few
'mistakes' are legal and must succeed (status 0). Files the mistakes need are made in a temp folder.
"""
from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOOD_PTX = ROOT / "programs" / "ptx" / "vecadd_cu.ptx"


def files(tmp: Path) -> dict:
    f = {}
    f["dir_ptx"] = tmp / "dir.ptx"
    f["dir_ptx"].mkdir()
    f["bad_utf8_ptx"] = tmp / "bad.ptx"
    f["bad_utf8_ptx"].write_bytes(GOOD_PTX.read_bytes() + b"\n// \xff\xfe\n")
    f["empty_ptx"] = tmp / "empty.ptx"
    f["empty_ptx"].write_text("")
    f["garbage_ptx"] = tmp / "garbage.ptx"
    f["garbage_ptx"].write_bytes(os.urandom(300).replace(b"\n", b" "))
    f["noentry_ptx"] = tmp / "noentry.ptx"
    f["noentry_ptx"].write_text(".version 8.0\n.target sm_90\n.address_size 64\n")
    f["bad_toml"] = tmp / "bad.toml"
    f["bad_toml"].write_bytes(b"[l1]\nlatency = 3\n\xff\n")
    f["syntax_toml"] = tmp / "syntax.toml"
    f["syntax_toml"].write_text("[l1\nlatency = 3\n")
    f["nan_toml"] = tmp / "nan.toml"
    f["nan_toml"].write_text("clock_mhz = nan\n")
    f["banks_toml"] = tmp / "banks.toml"
    f["banks_toml"].write_text("[smem]\nbanks = 600\n")
    f["huge_toml"] = tmp / "huge.toml"
    f["huge_toml"].write_text("[l2]\nlatency = 9223372036854775807\n")
    f["base_toml"] = tmp / "base.toml"
    f["base_toml"].write_text("base = 3\n")
    f["list_toml"] = tmp / "list.toml"
    f["list_toml"].write_text("sm = [1, 2]\n")
    f["dir_toml"] = tmp / "dir.toml"
    f["dir_toml"].mkdir()
    f["str_toml"] = tmp / "str.toml"
    f["str_toml"].write_text("[pipes]\nlat_int = \"four\"\n")
    f["cu"] = tmp / "k.cu"
    f["cu"].write_text("__global__ void k() {}\n")
    f["ro_dir"] = Path("/proc/version")
    return {k: str(v) for k, v in f.items()}


def mistakes(f: dict) -> list[tuple[list[str], int]]:
    p = str(GOOD_PTX)
    ptxrun = ["run", p, "--grid", "16", "--block", "256", "--arg", "f32[4096]=rand", "--arg", "f32[4096]=rand",
              "--arg", "f32[4096]=zeros"]
    return [
        ([], 2), (["nope"], 2), (["run"], 2), (["run", "nope"], 2), (["run", "vecadd", "--size"], 2),
        (["run", "vecadd", "--size", "-5"], 2), (["run", "vecadd", "--size", "0"], 2),
        (["run", "vecadd", "--size", "abc"], 2), (["run", "vecadd", "--size", "1e3"], 2),
        (["run", "vecadd", "--size", "1", "--mode", "functional"], 0),
        (["run", "vecadd", "--size", "3", "--mode", "functional"], 0),
        (["run", "sgemm_tiled", "--size", "3", "--mode", "functional"], 0),
        (["run", "transpose_tiled", "--size", "5", "--mode", "functional"], 0),
        (["run", "softmax", "--size", "7", "--mode", "functional"], 0),
        (["run", "reduce_shuffle", "--size", "1", "--mode", "functional"], 0),
        (["run", "stencil2d", "--size", "1", "--mode", "functional"], 0),
        (["run", "histogram", "--size", "1", "--mode", "functional"], 0),
        (["run", "vecadd", "--mode", "fast"], 2), (["run", "vecadd", "--gpu", "h200"], 2),
        (["run", "vecadd", "--gpu", "nope.toml"], 2), (["run", "vecadd", "--gpu", f["bad_toml"]], 2),
        (["run", "vecadd", "--gpu", f["syntax_toml"]], 2), (["run", "vecadd", "--gpu", f["nan_toml"]], 2),
        (["run", "vecadd", "--gpu", f["banks_toml"]], 2), (["run", "vecadd", "--gpu", f["huge_toml"]], 2),
        (["run", "vecadd", "--gpu", f["base_toml"]], 2), (["run", "vecadd", "--gpu", f["list_toml"]], 2),
        (["run", "vecadd", "--gpu", f["dir_toml"]], 2), (["run", "vecadd", "--gpu", f["str_toml"]], 2),
        (["run", "vecadd", "--seed", "-1"], 2), (["run", "vecadd", "--seed", "x"], 2),
        (["run", "vecadd", "--shared", "-1"], 2), (["run", "vecadd", "--regs", "0"], 2),
        (["run", "vecadd", "--regs", "1000", "--small"], 2), (["run", "vecadd", "--max-instructions", "0"], 2),
        (["run", "vecadd", "--max-instructions", "10", "--small"], 2),
        (["run", "vecadd", "--json", "/nonexistent/x.json"], 2), (["run", "vecadd", "--json", "/tmp"], 2),
        (["run", "vecadd", "--csv", "/nonexistent/x.csv"], 2), (["run", "vecadd", "--json", f["ro_dir"]], 2),
        (["run", "vecadd", "--csv", "/proc/x.csv"], 2),
        (["run", f["dir_ptx"], "--grid", "1", "--block", "32"], 2),
        (["run", f["bad_utf8_ptx"], "--grid", "1", "--block", "32"], 2),
        (["run", f["empty_ptx"], "--grid", "1", "--block", "32"], 2),
        (["run", f["garbage_ptx"], "--grid", "1", "--block", "32"], 2),
        (["run", f["noentry_ptx"], "--grid", "1", "--block", "32"], 2),
        (["run", "/nonexistent/k.ptx", "--grid", "1", "--block", "32"], 2),
        (["run", p], 2), (["run", p, "--grid", "1"], 2), (["run", p, "--kernel", "nope", "--grid", "1",
                                                          "--block", "1"], 2),
        (["run", p, "--grid", "1", "--block", "32"], 2),
        (["run", p, "--grid", "1", "--block", "32", "--arg", "f32=1", "--arg", "f32=1", "--arg", "f32=1",
          "--arg", "i32=4"], 2),
        (["run", p, "--grid", "1", "--block", "32", "--arg", "f32[4]=rand"], 2),
        ([*ptxrun, "--arg", "i32=4096"], 0), ([*ptxrun, "--arg", "i32=99999999999"], 2),
        ([*ptxrun, "--arg", "f32[4]=rand"], 2), ([*ptxrun, "--arg", "i32"], 2), ([*ptxrun, "--arg", "q32=1"], 2),
        ([*ptxrun, "--arg", "i32=nan"], 2), ([*ptxrun, "--arg", "f32=nan"], 2),
        ([*ptxrun, "--arg", "i32[0]=zeros"], 2), ([*ptxrun, "--arg", "i32[-1]=zeros"], 2),
        ([*ptxrun, "--arg", "i32[99999999999]=zeros"], 2), ([*ptxrun, "--arg", "i32[4]=bogus"], 2),
        ([*ptxrun, "--arg", "i8[300]=arange"], 2), ([*ptxrun, "--arg", "f32[2]=fill:x"], 2),
        (["run", p, "--grid", "0", "--block", "32"], 2), (["run", p, "--grid", "2.7", "--block", "32"], 2),
        (["run", p, "--grid", "1", "--block", "32,1,65"], 2), (["run", p, "--grid", "1,1,1,1", "--block", "32"], 2),
        (["run", p, "--grid", "1", "--block", "2048"], 2), (["run", p, "--grid", "", "--block", "32"], 2),
        (["run", p, "--grid", "1,65536", "--block", "32"], 2), (["run", p, "--grid", "-1", "--block", "32"], 2),
        (["run", p, "--grid", "99999999999999999999", "--block", "32"], 2),
        (["run", f["cu"], "--grid", "1", "--block", "32"], None),     # runs where nvcc is installed
        (["ptx"], 2), (["ptx", "nope"], 2), (["presets", "nope"], 2), (["presets", f["bad_toml"]], 2),
        (["validate", "--case", "nope"], 2), (["validate", "--out", "/nonexistent/R.md"], 2),
        (["validate", "--gpu", "nope"], 2), (["calibrate", "--gpu", "nope"], 2),
        (["calibrate", "--write", "/nonexistent/x.toml"], 2), (["warmup", "--mode", "x"], 2),
        (["run", "vecadd\udcff"], 2), (["run", "vecadd", "--kernel", "x", "--small", "--mode", "functional"], 0),
    ]


def main() -> int:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    bad = 0
    with tempfile.TemporaryDirectory() as tmp:
        for argv, want in mistakes(files(Path(tmp))):
            argv_b = [os.fsencode(a) for a in argv]
            try:
                r = subprocess.run([sys.executable, "-m", "gpusim.cli", *argv_b], capture_output=True, env=env,
                                   timeout=300, cwd=tmp)
            except subprocess.TimeoutExpired:      # a mistake found only after minutes of work
                bad += 1
                print(f"BAD  timeout  want={want} {' '.join(argv)[:70]}", flush=True)
                continue
            err = r.stderr.decode("utf-8", "replace")
            lines = [ln for ln in err.splitlines() if ln.strip() and not ln.startswith("gpusim: compil")]
            tb = "Traceback" in err
            one_line = len(lines) == 1 or len(lines) == 2 and lines[1].startswith("    ")   # + quoted PTX
            refused = r.returncode == 2 and one_line and lines[0].startswith("gpusim: error:")
            ok = not tb and (refused if want == 2 else r.returncode == 0 if want == 0 else refused or r.returncode == 0)
            bad += not ok
            shown = lines[0][:110] if lines else ""
            print(f"{'ok  ' if ok else 'BAD '} rc={r.returncode} want={want} {' '.join(argv)[:70]!s:72} {shown}",
                  flush=True)
    print(f"{bad} of {len(mistakes(files(Path(tempfile.mkdtemp()))))} mistakes not handled")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
