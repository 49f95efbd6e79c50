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


def qualified_name(mangled: str) -> str:
    """`_ZN8__main__6kernelB2v1...` -> `__main__.kernel` (numba's Itanium-mangled kernel names)."""
    if not mangled.startswith("_ZN"):
        return mangled
    i, parts = 3, []
    while i < len(mangled) and mangled[i].isdigit():
        j = i
        while j < len(mangled) and mangled[j].isdigit():
            j += 1
        n = int(mangled[i:j])
        parts.append(mangled[j:j + n])
        i = j + n
    return ".".join(parts) or mangled
