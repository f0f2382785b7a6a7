"""Helpers of the paper suites: run the experiment files of experiments/papers/ through the real runner.

Quick tests run the ``*_quick.yaml`` variants into a temporary directory (CI). Slow tests run
the full files into their own ``output`` directory (``results/papers/...``), so a sweep made
with ``harness run`` is reused, and an interrupted slow test resumes where it stopped.
"""
from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Dict, Optional

import yaml

REPO = Path(__file__).resolve().parents[2]
EXPERIMENTS = REPO / "experiments" / "papers"


def load(name: str) -> Dict[str, Any]:
    """An experiment file of experiments/papers/ as a mapping."""
    return yaml.safe_load((EXPERIMENTS / f"{name}.yaml").read_text())


#: Set to a directory to keep the quick suites' results there (resumable, for a report)
#: instead of pytest's temporary directories.
KEEP_ENV = "HARNESS_PAPERS_KEEP"


def run_file(name: str, output: Optional[Path] = None):
    """Run (or resume) an experiment file; ``output`` None = the file's own ``output``."""
    from harness.fixtures import run_experiment_text
    data = load(name)
    keep = os.environ.get(KEEP_ENV)
    if output is not None and keep:
        output = Path(keep) / name
    out = Path(output) if output is not None else REPO / data["output"]
    return run_experiment_text(data, out)


def show(series: Any, what: str, x_name: str, regime: Dict[str, Any]) -> None:
    """Print the table a claim is judged on (also when it passes)."""
    from harness import trends
    print(f"\n{what} by {x_name} ({', '.join(f'{k}={v}' for k, v in regime.items())})\n"
          + trends.table(trends.points(series), what, x_name))
