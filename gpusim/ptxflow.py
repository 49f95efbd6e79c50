"""Control flow of PTX text, read line by line (no parse): its basic blocks and its loops. The SASS map
(gpusim/sassmap.py) places ptxas's SASS against these."""
from __future__ import annotations

import re

_PTX_LABEL = re.compile(r"^\s*(\$?[\w$]+):")
_PTX_BRANCH = re.compile(r"\bbra(?:\.uni)?\s+(\$?[\w$]+)\s*;")
_PTX_END = re.compile(r"^\s*(?:@!?%\w+\s+)?(?:ret|exit|trap)\b")


def ptx_blocks(lines: list) -> tuple[list, list]:
    """Basic blocks of PTX lines: their first lines (0-based, sorted) and, per line (0-based, one past the end
    too), its block. A block starts at a label and after a branch, ret, exit or trap."""
    starts = {0}
    for i, s in enumerate(lines):
        if _PTX_LABEL.match(s) and not s.lstrip().startswith("."):
            starts.add(i)
        elif _PTX_BRANCH.search(s) or _PTX_END.search(s):
            starts.add(i + 1)
    starts = sorted(x for x in starts if x < len(lines)) or [0]
    block_of = [0] * (len(lines) + 1)
    for b, a in enumerate(starts):
        for i in range(a, starts[b + 1] if b + 1 < len(starts) else len(lines)):
            block_of[i] = b
    return starts, block_of


def ptx_loops(text: str) -> list:
    """PTX loops as (first line, last line): from a label to the last branch back to it that the label's
    code can reach. A branch back to a label whose code cannot come to the branch is no loop: numba puts
    a kernel's early `ret` block (`$L__BB0_7: ret;`) before the body, and the body's last block jumps back
    to it."""
    lines = text.splitlines()
    starts, block_of = ptx_blocks(lines)
    label_block = {}
    for i, s in enumerate(lines):
        lab = _PTX_LABEL.match(s)
        if lab and not s.lstrip().startswith("."):
            label_block[lab.group(1)] = block_of[i]
    n = len(starts)
    succ = [set() for _ in range(n)]
    for b in range(n):
        last = (starts[b + 1] if b + 1 < n else len(lines)) - 1
        body = [lines[i] for i in range(starts[b], last + 1) if lines[i].strip()]
        tail = body[-1] if body else ""
        br = _PTX_BRANCH.search(tail)
        if br and br.group(1) in label_block:
            succ[b].add(label_block[br.group(1)])
        ends_flow = (_PTX_END.search(tail) or br) and not tail.lstrip().startswith("@")
        if not ends_flow and b + 1 < n:
            succ[b].add(b + 1)

    def reaches(a, z):
        if a < 0:
            return False
        seen, todo = {a}, [a]
        while todo:
            x = todo.pop()
            if x == z:
                return True
            for y in succ[x] - seen:
                seen.add(y)
                todo.append(y)
        return False

    at, out = {}, {}
    for i, s in enumerate(lines, 1):
        lab = _PTX_LABEL.match(s)
        if lab:
            at[lab.group(1)] = i
            continue
        br = _PTX_BRANCH.search(s)
        if br and br.group(1) in at and reaches(label_block.get(br.group(1), -1), block_of[i - 1]):
            out[at[br.group(1)]] = i
    return sorted(out.items())


def home_block(lines: list, block_of: list) -> int | None:
    """A SASS block's own PTX block, given its PTX line per instruction (1-based, None for none): the one most of
    its instructions come from (the earliest on a tie); None if no instruction has a line."""
    votes: dict = {}
    for x in lines:
        if x is not None:
            votes[block_of[x - 1]] = votes.get(block_of[x - 1], 0) + 1
    return min(votes, key=lambda b: (-votes[b], b)) if votes else None


def run_line(lines: list, k: int, block_of: list, home: int | None = None) -> int:
    """The PTX line at which a warp comes to SASS instruction k of a SASS block, given the block's PTX line per
    instruction (1-based). ptxas hoists constant loads (ULDC) and integer work out of loops and ahead of branches,
    so such an instruction's own line may lie in a later PTX block than the code around it, and the warps run it
    there, all together (the H100's imc_miss samples on prologue ULDCs; ho_stencil1d's comparisons and selects
    for the reads after its barrier, issued before it). An instruction from another PTX block than the SASS
    block's own (`home_block`) goes to the next instruction of the own PTX block, else the one before it, else
    keeps its line."""
    ln = lines[k]
    home = home_block(lines, block_of) if home is None else home
    if ln is None or block_of[ln - 1] == home:
        return ln
    for j in list(range(k + 1, len(lines))) + list(range(k - 1, -1, -1)):
        if lines[j] is not None and block_of[lines[j] - 1] == home:
            return lines[j]
    return ln


def moved_lines(lines: list, movable: list, block_of: list) -> list:
    """A SASS block's PTX lines with each `movable` instruction from another PTX block than the SASS block's own
    placed where the warps run it (`run_line`); the others keep theirs. For a block outside SASS loops: ptxas
    hoists integer work ahead of branches and barriers and out of loops, and sinks it into the block that uses
    it; inside a loop the blocks are small and their own PTX block is not told apart by votes."""
    home = home_block(lines, block_of)
    return [run_line(lines, k, block_of, home) if mv and block_of[ln - 1] != home else ln
            for k, (ln, mv) in enumerate(zip(lines, movable))]
