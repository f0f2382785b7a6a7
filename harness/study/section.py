"""The frame of a study's section in an experiment's report, and what the papers' own
sections share: where their figures go, how the report links them, whether figures can be drawn.

Each paper module writes its section (``paperNNN.report_section``): the paper's figures from
our records, the claim table with our numbers and the difference, the regimes side by side,
and why we may differ. This module puts the heading and the out-of-scope note around it.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, List

if TYPE_CHECKING:
    from harness.experiment.results import ResultSet

def out_of_scope(key: str) -> List[str]:
    """Study ``key``'s out-of-scope section (its ``OUT_OF_SCOPE`` note), or nothing."""
    from harness.study import study_module
    note = str(getattr(study_module(key), "OUT_OF_SCOPE", ""))
    return ["### Out of scope", "", note, ""] if note else []


def figures_ok() -> bool:
    """Whether matplotlib is there to draw the papers' figures (the tables are written anyway)."""
    from harness.analysis.plot import have_matplotlib
    return have_matplotlib()


def link(path: Path, report_path: Path, alt: str) -> str:
    """Markdown image of ``path``, relative to the report that shows it."""
    return f"![{alt}]({os.path.relpath(path, Path(report_path).parent)})"


def fig_path(fig_dir: Path, stem: str, fmt: str) -> Path:
    return fig_dir / f"{stem}.{fmt}"


def render(key: str, rs: ResultSet, report_path: Path, fmt: str = "png") -> str:
    """Paper ``key``'s section of the report of result set ``rs``."""
    from harness.study import study_module
    fig_dir = Path(report_path).parent / f"{Path(report_path).stem}-figures"
    out = [f"## Paper {key}: comparison with the paper", ""]
    out += study_module(key).report_section(rs, fig_dir, Path(report_path), fmt)
    out += out_of_scope(key)
    return "\n".join(out)
