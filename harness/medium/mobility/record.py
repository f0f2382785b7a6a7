"""What a run's record keeps of its trajectories, and how to replay them.

A run's trajectories are kept in its record as the CSV form itself (``traces.format_csv``:
numbers as ``repr``, so they read back to the same doubles), with its SHA-256 and what made
them (model, seed, duration). A record travels whole from a guest to the store, so nothing
is written beside it; the CSV is compact (about 50 bytes per waypoint: a random waypoint run
of ten nodes over a minute is a few kB, less than a flow's ``ss`` samples). ``export`` writes
it to a file that ``mobility: {model: csv, file: ...}`` replays exactly.
"""
from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any, Dict, Mapping, Optional, Union

from harness.errors import HarnessError
from harness.medium.mobility import traces
from harness.medium.mobility.trajectory import Trajectory


def digest(csv_text: str) -> str:
    return hashlib.sha256(csv_text.encode()).hexdigest()


def entry(trajectories: Mapping[str, Trajectory], model: str, seed: int,
          duration: Optional[float]) -> Dict[str, Any]:
    """The record's ``medium.mobility``: how the trajectories were made, and the CSV."""
    text = traces.format_csv(trajectories)
    return {"model": model, "seed": seed, "duration_s": duration, "nodes": list(trajectories),
            "waypoints": sum(len(t.waypoints) for t in trajectories.values()),
            "sha256": digest(text), "csv": text}


def trajectories_of(kept: Mapping[str, Any]) -> Dict[str, Trajectory]:
    """The trajectories a record's ``medium.mobility`` keeps (its digest checked)."""
    text = kept.get("csv")
    if not isinstance(text, str):
        raise HarnessError("medium.mobility of this record keeps no csv; expected a run that "
                           "moved nodes")
    if digest(text) != kept.get("sha256"):
        raise HarnessError("medium.mobility.csv does not match its sha256: the record was "
                           "changed")
    return traces.parse_csv(text, "medium.mobility.csv")


def export(kept: Mapping[str, Any], path: Union[str, Path]) -> Path:
    """Write a record's trajectories as CSV, for ``mobility: {model: csv, file: PATH}``."""
    trajectories_of(kept)  # checks the digest and the form
    out = Path(path)
    out.write_text(kept["csv"])
    return out
