"""Numbers and kernel names as every report shows them (the terminal tables and the HTML page)."""
from __future__ import annotations


def fmt(v) -> str:
    if isinstance(v, float):
        return f"{v:,.2f}"
    if isinstance(v, int):
        return f"{v:,}"
    return str(v)


def short_name(name: str) -> str:
    """numba's mangled kernel names (_ZN<len><name>...), shortened to the Python function name."""
    if not name.startswith("_ZN"):
        return name[:40]
    pos, last = 3, name
    while pos < len(name) and name[pos].isdigit():
        end = pos
        while name[end].isdigit():
            end += 1
        n = int(name[pos:end])
        last = name[end:end + n]
        pos = end + n
    return last
