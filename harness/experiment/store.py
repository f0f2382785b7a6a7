"""Results store: ``OUTPUT/runs/<run_id>.json`` written atomically, plus the experiment copy.

A record exists only if its run finished (ok or failed): it is written to a temporary file,
fsynced and renamed, so a killed process leaves either the whole record or none and resume reruns
exactly the runs without one. Records that match no run of the current file mean the file's
parameters changed; that is reported instead of silently mixing two experiments.
"""
from __future__ import annotations

import datetime as _dt
import fcntl
import json
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Dict, Iterable, List, Mapping, Optional, Set, Union

import yaml

from harness.errors import HarnessError
from harness.experiment import archive as packed
from harness.experiment.lag import Threshold, to_redo
from harness.experiment.sweep import Run

RECORD_SCHEMA = 1
EXPERIMENT_COPY = "experiment.yaml"
PLAN = "plan.json"
RUNS = "runs"
ARCHIVE = "archive"
#: Which stored failures a resumed sweep runs again: all (True), none (False), or those a
#: predicate on the record accepts.
RetryRule = Union[bool, Callable[[Mapping[str, Any]], bool]]


@dataclass
class ResumeState:
    """What ``Store.prepare`` found: runs already done, and what changed in the file."""

    done: Set[str] = field(default_factory=set)
    failed: Set[str] = field(default_factory=set)
    lagged: Set[str] = field(default_factory=set)  # ok runs to redo: the host perturbed them
    changes: List[str] = field(default_factory=list)
    archived: Optional[Path] = None


def write_json_atomic(path: Path, data: Any) -> None:
    """A run record or plan as JSON, written atomically (``write_bytes_atomic``)."""
    text = json.dumps(data, indent=1, sort_keys=False, allow_nan=False, default=_json_default)
    write_bytes_atomic(path, (text + "\n").encode())


def write_text_atomic(path: Path, text: str) -> None:
    write_bytes_atomic(path, text.encode())


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write so that ``path`` holds the old content or the whole new content, never a part:
    a temporary file beside it, fsync, rename over it, fsync the directory."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.parent / f".{path.name}.tmp.{os.getpid()}"
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    _fsync_dir(path.parent)


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _json_default(value: Any) -> Any:
    """Executors may hand back tuples, paths or dataclass-like objects; store them plainly."""
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, Path):
        return str(value)
    if hasattr(value, "__dict__"):
        return vars(value)
    raise TypeError(f"cannot store {type(value).__name__} in a run record")


class Store:
    """One experiment's output directory.

    An experiment of a record file (``FOLDER/NAME``, ``harness.experiment.archive``) is read-only
    here: its records count as stored (``existing_ids``, ``load``), but ``lock`` refuses.
    """

    def __init__(self, root: os.PathLike):
        self.root = Path(root)
        self.runs_dir = self.root / RUNS
        self._lock: Optional[IO[str]] = None
        self._packed: Optional[Dict[str, Dict[str, Any]]] = None

    def packed_records(self) -> Optional[Dict[str, Dict[str, Any]]]:
        """``{run_id: record}`` of an experiment of a record file (read once); None for a live
        directory."""
        if self._packed is None and packed.is_packed(self.root):
            self._packed = {r["run_id"]: r for r in packed.entry(self.root)["runs"]}
        return self._packed

    def record_path(self, run_id: str) -> Path:
        return self.runs_dir / f"{run_id}.json"

    def lock(self) -> None:
        """Refuse a second runner on the same directory (two writers would double-run)."""
        if packed.is_packed(self.root):
            raise HarnessError(
                f"{self.root} is an experiment of a record file (read-only)",
                hint=f"unpack it into a results directory and run there: harness archive "
                     f"unpack {self.root} DIR; harness run FILE --output DIR")
        self.root.mkdir(parents=True, exist_ok=True)
        fh = open(self.root / ".lock", "w")
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            fh.close()
            raise HarnessError(f"another harness run is writing to {self.root}",
                               hint="wait for it, or choose another --output") from None
        self._lock = fh

    def unlock(self) -> None:
        if self._lock is not None:
            self._lock.close()
            self._lock = None

    def existing_ids(self) -> Set[str]:
        """Ids of finished runs (temporary files of killed writers are not records)."""
        stored = self.packed_records()
        if stored is not None:
            return set(stored)
        if not self.runs_dir.is_dir():
            return set()
        return {p.stem for p in self.runs_dir.glob("*.json") if not p.name.startswith(".")}

    def remove_partial(self) -> int:
        """Delete temporary files a killed writer left; returns how many."""
        if not self.runs_dir.is_dir():
            return 0
        leftovers = list(self.runs_dir.glob(".*.tmp.*"))
        for p in leftovers:
            p.unlink(missing_ok=True)
        return len(leftovers)

    def load(self, run_id: str) -> Dict[str, Any]:
        stored = self.packed_records()
        if stored is not None:
            if run_id not in stored:
                raise HarnessError(f"{self.root} holds no run {run_id}")
            return stored[run_id]
        path = self.record_path(run_id)
        try:
            return json.loads(path.read_text())
        except (OSError, ValueError) as err:
            raise HarnessError(f"cannot read run record {path}: {err}") from None

    def write(self, record: Dict[str, Any]) -> Path:
        path = self.record_path(record["run_id"])
        write_json_atomic(path, record)
        return path

    def records(self) -> List[Dict[str, Any]]:
        """Every stored record, in run order."""
        recs = [self.load(i) for i in self.existing_ids()]
        return sorted(recs, key=lambda r: (r.get("repetition", 0), r.get("index", 0), r["run_id"]))

    def prepare(self, experiment_text: str, runs: Iterable[Run], *, fresh: bool = False,
                retry_failed: RetryRule = False,
                retry_lagged: Optional[Threshold] = None) -> ResumeState:
        """Check stored records against the planned runs, then save the experiment and plan.

        ``retry_failed``: True runs every stored failure again; a predicate runs again only
        the failures it accepts (the others are kept as the point's outcome).

        Raises ``HarnessError`` when stored records belong to other parameters, unless
        ``fresh``, which moves the old results to ``archive/<time>/`` (nothing is deleted).
        """
        runs = list(runs)
        planned = {r.run_id for r in runs}
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        self.remove_partial()
        state = ResumeState()
        existing = self.existing_ids()
        changes = self._changes(experiment_text)
        if fresh and (existing or (self.root / EXPERIMENT_COPY).exists()):
            state.archived = self._archive()
            existing = set()
        orphans = existing - planned
        if orphans:
            detail = "; ".join(changes[:8]) if changes else "the stored experiment.yaml is missing"
            raise HarnessError(
                f"{self.root} holds {len(orphans)} run record(s) that match no run of this "
                f"experiment file: its parameters changed ({detail})",
                hint="use --fresh to archive the old results and start again, "
                     "or --output DIR to keep both")
        records = [self.load(run_id) for run_id in existing]
        lagged = set(to_redo(records, retry_lagged)) if retry_lagged is not None else set()
        for run_id, record in zip(existing, records):
            if record.get("status") == "failed" and (
                    retry_failed is True or (callable(retry_failed) and retry_failed(record))):
                state.failed.add(run_id)
            elif run_id in lagged:
                state.lagged.add(run_id)
            else:
                state.done.add(run_id)
        state.changes = changes
        write_text_atomic(self.root / EXPERIMENT_COPY, experiment_text)
        write_json_atomic(self.root / PLAN, {
            "runs": [{"run_id": r.run_id, "index": r.index, "repetition": r.repetition,
                      "point": r.point} for r in runs]})
        return state

    def set_aside(self, run_id: str, why: str) -> Optional[Path]:
        """Move a stored record to ``archive/replaced/`` before its run is redone (so a redo
        loses nothing); returns where it went, or None when there was no record."""
        src = self.record_path(run_id)
        if not src.exists():
            return None
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        dest = self.root / ARCHIVE / "replaced" / f"{run_id}.{stamp}.json"
        dest.parent.mkdir(parents=True, exist_ok=True)
        record = json.loads(src.read_text())
        record["replaced_because"] = why
        write_json_atomic(dest, record)
        return dest

    def _changes(self, new_text: str) -> List[str]:
        old_path = self.root / EXPERIMENT_COPY
        if not old_path.exists():
            return []
        try:
            old = yaml.safe_load(old_path.read_text())
            new = yaml.safe_load(new_text)
        except (yaml.YAMLError, ValueError):  # ValueError: a copy that is not UTF-8 text
            return ["the stored experiment.yaml is unreadable"]
        return diff(old, new)

    def _archive(self) -> Path:
        stamp = _dt.datetime.now(_dt.timezone.utc).strftime("%Y%m%dT%H%M%SZ")
        dest = self.root / ARCHIVE / stamp
        dest.mkdir(parents=True, exist_ok=False)
        for name in (RUNS, EXPERIMENT_COPY, PLAN):
            src = self.root / name
            if src.exists():
                shutil.move(str(src), str(dest / name))
        self.runs_dir.mkdir(parents=True, exist_ok=True)
        return dest


def diff(old: Any, new: Any, at: str = "") -> List[str]:
    """Key paths whose values differ between two parsed experiment files, as ``path: a -> b``."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: List[str] = []
        for key in list(old) + [k for k in new if k not in old]:
            child = f"{at}.{key}" if at else str(key)
            if key not in new:
                out.append(f"{child}: removed (was {_j(old[key])})")
            elif key not in old:
                out.append(f"{child}: added ({_j(new[key])})")
            else:
                out.extend(diff(old[key], new[key], child))
        return out
    if (isinstance(old, list) and isinstance(new, list) and len(old) == len(new)
            and all(isinstance(x, dict) for x in old + new)):
        out = []
        for i, (a, b) in enumerate(zip(old, new)):
            out.extend(diff(a, b, f"{at}[{i}]"))
        return out
    if old != new or type(old) is not type(new):
        return [f"{at}: {_j(old)} -> {_j(new)}"]
    return []


def _j(value: Any) -> str:
    return json.dumps(value, default=str)
