"""gpusim.html: the "see inside a run" report, one self-contained HTML page (README.md says how)."""
from gpusim.html.page import notebook, render, write

__all__ = ["render", "write", "notebook"]
