"""Paper reproductions (docs/papers.md): claim tables, analysis, figures and the report
sections ``harness report`` appends for their experiments.

A paper is a module ``paperNNN.py`` in this package, found by its name (nothing lists the
papers). It provides ``PAPER`` (its ``claims.Paper``, key ``"NNN"``), ``rows(records)`` (the
claim rows our records fill), ``why_differ()``, ``ROWS_FROM`` (the experiment-name prefixes
the paper page's rows are computed from; optionally ``ROWS_READ_FAILED``, those of them whose
failed runs are results too, read whole), ``report_section(rs, fig_dir, report, fmt)`` (its
part of an experiment's report) and optionally ``page_sections(sets)`` (parts of the paper page
that need several experiments). An experiment belongs to paper NNN by its name
(``paperNNN_...``, the ``name:`` of experiments/papers/*.yaml).

May import: ``harness.errors``, ``harness.medium``, ``harness.experiment``,
``harness.analysis``, ``policies``, ``topologies``.
"""
from __future__ import annotations

import importlib
import pkgutil
import re
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, List, Optional

from harness.analysis import report
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.experiment.results import ResultSet

__all__ = ["paper_keys", "paper_module", "paper_of", "section", "write_report"]

_MODULE_NAME = re.compile(r"paper(\d{3})")


def paper_keys() -> List[str]:
    """The keys of every paper module here (``"001"`` for ``paper001.py``), without importing them."""
    found = (_MODULE_NAME.fullmatch(m.name) for m in pkgutil.iter_modules(__path__))
    return sorted(m.group(1) for m in found if m)


def paper_module(key: str) -> ModuleType:
    """The module of paper ``key``; a clear error for a key no module has."""
    if key not in paper_keys():
        raise HarnessError(f"paper {key!r} is unknown: allowed {', '.join(paper_keys())}")
    module = importlib.import_module(f"{__name__}.paper{key}")
    if module.PAPER.key != key:
        raise HarnessError(f"{module.__name__}: its PAPER has key {module.PAPER.key!r}, "
                           f"expected {key!r} (from the module's name)")
    return module


def paper_of(name: str) -> str:
    """The paper key of an experiment's name (``"001"`` for ``paper001_cwl_sweep``), else ``""``."""
    for key in paper_keys():
        if name.startswith(f"paper{key}_"):
            return key
    return ""


def section(rs: ResultSet, report_path: Path, fmt: str = "png") -> str:
    """Markdown comparing the results with the paper (and the paper figures it draws)."""
    key = paper_of(rs.name)
    if not key:
        return ""
    from harness.papers import sections
    return sections.render(key, rs, report_path, fmt)


def write_report(root: Path, output: Optional[Path] = None, fmt: str = "png") -> Path:
    """A result set's report (``harness.analysis.report``), with its paper's section when the
    experiment belongs to a paper: what ``harness report`` and ``harness run`` write."""
    return report.write_report(root, output, fmt, sections=[section])
