"""Paper reproductions (papers 001 and 004; docs/papers.md): claim tables, analysis, figures
and the report sections ``harness report`` appends for their experiments.

An experiment belongs to a paper by its name (``paper001_...``, ``paper004_...``, the
``name:`` of experiments/papers/*.yaml); ``section(rs, report_path, fmt)`` returns the Markdown
to append (empty for other experiments).
"""
from __future__ import annotations

from typing import Any

__all__ = ["paper_of", "section"]


def paper_of(name: str) -> str:
    """``"001"``/``"004"`` for a paper experiment's name, else ``""``."""
    for key in ("001", "004"):
        if name.startswith(f"paper{key}_"):
            return key
    return ""


def section(rs: Any, report_path: Any, fmt: str = "png") -> str:
    """Markdown comparing the results with the paper (and the paper figures it draws)."""
    key = paper_of(rs.name)
    if not key:
        return ""
    from harness.papers import sections
    return sections.render(key, rs, report_path, fmt)
