"""Control-flow graph of one function and the immediate post-dominator of each branch.

SIMT reconvergence uses the immediate post-dominator (IPDOM) of a divergent branch: the first
instruction every path from the branch must pass through. Paths that leave the function (exit/ret
in a kernel) reach a virtual exit node; a branch whose IPDOM is that node gets reconvergence point
-1, and its paths are retired lane by lane as they exit.
"""
from __future__ import annotations


def basic_blocks(n: int, is_branch, targets, is_terminal) -> tuple[list[int], list[list[int]]]:
    """Leaders and successor lists over instruction indices [0, n).

    is_branch[i]: instruction i may jump to targets[i]; if it is unconditional (target taken always)
    is_terminal[i] is 'jump'; 'exit' ends the path; None falls through as well.
    """
    leaders = {0}
    for i in range(n):
        if is_branch[i]:
            leaders.add(targets[i])
            if i + 1 < n:
                leaders.add(i + 1)
        elif is_terminal[i] == "exit" and i + 1 < n:
            leaders.add(i + 1)
    starts = sorted(x for x in leaders if x < n)
    block_of = {}
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < len(starts) else n
        for i in range(s, e):
            block_of[i] = b
    succ = []
    for b, s in enumerate(starts):
        last = (starts[b + 1] if b + 1 < len(starts) else n) - 1
        out = []
        kind = is_terminal[last]
        if is_branch[last]:
            out.append(block_of[targets[last]])
        if kind is None and last + 1 < n:
            out.append(block_of[last + 1])
        succ.append(out)
    return starts, succ


def _connect_to_exit(nblocks: int, succs: list[list[int]]) -> list[list[int]]:
    """Give every region that cannot reach the exit (an infinite loop) a virtual edge to it, from its
    last block in program order, so post-dominance is defined everywhere (as LLVM does)."""
    exit_node = nblocks
    succs = [list(s) for s in succs]
    while True:
        preds: list[list[int]] = [[] for _ in range(nblocks + 1)]
        for b, out in enumerate(succs):
            for s in out:
                preds[s].append(b)
        reach, todo = {exit_node}, [exit_node]
        while todo:
            for p in preds[todo.pop()]:
                if p not in reach:
                    reach.add(p)
                    todo.append(p)
        stuck = [b for b in range(nblocks) if b not in reach]
        if not stuck:
            return succs
        succs[max(stuck)].append(exit_node)


def post_dominators(nblocks: int, succ: list[list[int]]) -> list[int]:
    """Immediate post-dominator block of each block; nblocks means the virtual exit."""
    exit_node = nblocks
    full = set(range(nblocks + 1))
    pdom = [set(full) for _ in range(nblocks)] + [{exit_node}]
    succs = _connect_to_exit(nblocks, [s if s else [exit_node] for s in succ])
    changed = True
    while changed:
        changed = False
        for b in range(nblocks - 1, -1, -1):
            inter = set.intersection(*(pdom[s] for s in succs[b]))
            new = inter | {b}
            if new != pdom[b]:
                pdom[b] = new
                changed = True
    ipdom = []
    for b in range(nblocks):
        cands = pdom[b] - {b}
        # the immediate one is the candidate post-dominated by all the others
        best = exit_node
        for c in cands:
            if c == exit_node:
                continue
            if all(o == c or o in pdom[c] for o in cands):
                best = c
                break
        ipdom.append(best)
    return ipdom


def reconvergence_points(n, is_branch, targets, is_terminal, exit_pc: int = -1) -> list[int]:
    """For each instruction: the pc where a divergent branch there reconverges (exit_pc if none)."""
    starts, succ = basic_blocks(n, is_branch, targets, is_terminal)
    ipdom = post_dominators(len(starts), succ)
    block_start = {b: s for b, s in enumerate(starts)}
    rpc = [exit_pc] * n
    for b, s in enumerate(starts):
        e = starts[b + 1] if b + 1 < len(starts) else n
        last = e - 1
        if is_branch[last]:
            p = ipdom[b]
            rpc[last] = block_start[p] if p < len(starts) else exit_pc
    return rpc
