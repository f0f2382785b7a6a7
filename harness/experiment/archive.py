"""Packed results: a finished results directory in a few compressed files, read-only.

A live sweep writes one JSON file per run (``runs/<id>.json``, atomically, so that a killed
runner loses at most the run in progress). Thousands of such files are a poor way to keep
finished results in git, so ``pack`` puts them into one directory per experiment::

    ARCHIVE/experiment.yaml   the experiment copy (as stored by the runner)
    ARCHIVE/plan.json         the plan (reports count planned runs from it)
    ARCHIVE/runs.jsonl.gz     every run record, one JSON line each, in run order
    ARCHIVE/kept.jsonl.gz     records the runner set aside (``archive/replaced/...``,
                              ``archive/<time>/...``): one line ``{"path", "record"}`` each
    ARCHIVE/packed.json       what is inside, and where the reports go (``reports``,
                              relative to ARCHIVE)

``load_results`` reads such a directory like a results directory (``harness report ARCHIVE``),
and writes its report into ``reports``, so the records can live outside ``docs/`` while the
reports stay there. ``unpack`` gives back a results directory that ``harness run`` resumes.

The files are byte-reproducible: gzip without a time stamp or file name, records in run
order, each record's keys in their stored order (not sorted: the order of ``point`` is the
order reports list the swept keys in).
"""
from __future__ import annotations

import gzip
import io
import json
import os
import shutil
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple

from harness.errors import HarnessError

MANIFEST = "packed.json"
RUNS_FILE = "runs.jsonl.gz"
KEPT_FILE = "kept.jsonl.gz"
FORMAT = 1
#: Files of a results directory copied as they are.
SMALL_FILES = ("experiment.yaml", "plan.json")
#: Where the runner keeps records it set aside (``harness.experiment.store.ARCHIVE``).
KEPT_DIR = "archive"


def is_packed(root: os.PathLike) -> bool:
    """True when ``root`` is a packed results directory (it holds ``packed.json``)."""
    return (Path(root) / MANIFEST).is_file()


def run_order(record: Dict[str, Any]) -> Tuple[Any, Any, str]:
    """The order records are stored and reported in (the store's and the reports' order)."""
    return (record.get("repetition", 0), record.get("index", 0), record.get("run_id", ""))


def _line(data: Any) -> bytes:
    return (json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n").encode()


def _write_gz_lines(path: Path, items: List[Any]) -> None:
    """Write a gzip JSON-lines file atomically, with no time stamp: same items, same bytes."""
    buf = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buf, compresslevel=9, mtime=0) as gz:
        for item in items:
            gz.write(_line(item))
    from harness.experiment.store import write_bytes_atomic
    write_bytes_atomic(path, buf.getvalue())


def _read_gz_lines(path: Path) -> Iterator[Any]:
    try:
        with gzip.open(path, "rt") as fh:
            for n, text in enumerate(fh, 1):
                if text.strip():
                    try:
                        yield json.loads(text)
                    except ValueError as err:
                        raise HarnessError(f"{path} line {n}: not JSON ({err})") from None
    except (OSError, EOFError) as err:
        raise HarnessError(f"cannot read {path}: {err}") from None


def manifest(root: os.PathLike) -> Dict[str, Any]:
    """The packed directory's ``packed.json``; a clear error if it is missing or foreign."""
    path = Path(root) / MANIFEST
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as err:
        raise HarnessError(f"{root} is not a packed results directory ({path}: {err})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise HarnessError(f"{path}: format {data.get('format') if isinstance(data, dict) else data!r}"
                           f" is not one this harness reads (allowed: {FORMAT})")
    return data


def load_records(root: os.PathLike) -> List[Dict[str, Any]]:
    """Every run record of a packed directory, in run order."""
    manifest(root)
    return list(_read_gz_lines(Path(root) / RUNS_FILE))


def load_kept(root: os.PathLike) -> List[Tuple[str, Dict[str, Any]]]:
    """``(relative path, record)`` of every set-aside record a packed directory keeps."""
    path = Path(root) / KEPT_FILE
    if not path.exists():
        return []
    return [(item["path"], item["record"]) for item in _read_gz_lines(path)]


def reports_dir(root: os.PathLike) -> Path:
    """Where the reports of a packed directory go (``packed.json``'s ``reports``)."""
    rel = manifest(root).get("reports") or "."
    return Path(os.path.normpath(Path(root) / rel))


def _raw_records(src: Path) -> List[Dict[str, Any]]:
    out = []
    for path in sorted((src / "runs").glob("*.json")):
        if path.name.startswith("."):
            continue
        try:
            out.append(json.loads(path.read_text()))
        except (OSError, ValueError) as err:
            raise HarnessError(f"{path}: not a run record ({err})") from None
    return out


def _raw_kept(src: Path) -> List[Tuple[str, Dict[str, Any]]]:
    base = src / KEPT_DIR
    if not base.is_dir():
        return []
    out = []
    for path in sorted(base.rglob("*.json")):
        if path.name.startswith("."):
            continue
        try:
            out.append((path.relative_to(src).as_posix(), json.loads(path.read_text())))
        except (OSError, ValueError) as err:
            raise HarnessError(f"{path}: not a run record ({err})") from None
    return out


def pack(src: os.PathLike, dest: os.PathLike, *, reports: Optional[os.PathLike] = None,
         remove: bool = False) -> Dict[str, Any]:
    """Pack results directory ``src`` into ``dest``; returns the manifest.

    ``reports``: where ``harness report DEST`` writes the report (default ``src``, which
    keeps its report and figures). The packed files are read back and compared with the
    originals before anything else happens; ``remove`` then deletes the originals (records,
    set-aside records, experiment copy and plan) from ``src``, leaving reports and figures.
    """
    src, dest = Path(src), Path(dest)
    if is_packed(src):
        raise HarnessError(f"{src} is packed already")
    if not (src / "runs").is_dir():
        raise HarnessError(f"{src} is not a results directory (no runs/ inside)",
                           hint="pack the output directory of `harness run`")
    if (dest / "runs").exists():
        raise HarnessError(f"{dest} holds a runs/ directory: pack into a new directory")
    records = sorted(_raw_records(src), key=run_order)
    if not records:
        raise HarnessError(f"{src / 'runs'} holds no run records")
    ids = [r.get("run_id") for r in records]
    if len(set(ids)) != len(ids):
        raise HarnessError(f"{src / 'runs'}: a run_id occurs twice")
    kept = _raw_kept(src)
    dest.mkdir(parents=True, exist_ok=True)
    for name in SMALL_FILES:
        if (src / name).exists():
            shutil.copyfile(src / name, dest / name)
    _write_gz_lines(dest / RUNS_FILE, records)
    if kept:
        _write_gz_lines(dest / KEPT_FILE, [{"path": p, "record": r} for p, r in kept])
    elif (dest / KEPT_FILE).exists():
        (dest / KEPT_FILE).unlink()
    rel = os.path.relpath(Path(reports) if reports is not None else src, dest)
    info = {"format": FORMAT, "experiment": records[0].get("experiment"),
            "runs": len(records), "kept": len(kept), "reports": Path(rel).as_posix()}
    from harness.experiment.store import write_json_atomic
    write_json_atomic(dest / MANIFEST, info)
    _verify(dest, records, kept)
    if remove:
        _remove_packed(src, kept)
    return info


def _verify(dest: Path, records: List[Dict[str, Any]],
            kept: List[Tuple[str, Dict[str, Any]]]) -> None:
    """Read the packed files back: the same records, keys in the same order, or an error."""
    same = [_line(r) for r in load_records(dest)] == [_line(r) for r in records]
    same_kept = ([(p, _line(r)) for p, r in load_kept(dest)]
                 == [(p, _line(r)) for p, r in kept])
    if not (same and same_kept):
        raise HarnessError(f"{dest}: the packed records differ from the originals; "
                           "nothing was removed")


def _remove_packed(src: Path, kept: List[Tuple[str, Dict[str, Any]]]) -> None:
    shutil.rmtree(src / "runs")
    for rel, _ in kept:
        (src / rel).unlink()
    for directory in sorted((src / KEPT_DIR).rglob("*"), reverse=True) if kept else []:
        if directory.is_dir() and not any(directory.iterdir()):
            directory.rmdir()
    if kept and (src / KEPT_DIR).is_dir() and not any((src / KEPT_DIR).iterdir()):
        (src / KEPT_DIR).rmdir()
    for name in SMALL_FILES + (".lock",):
        (src / name).unlink(missing_ok=True)


def unpack(root: os.PathLike, dest: os.PathLike) -> int:
    """Write a packed directory back as a results directory ``dest`` (``runs/<id>.json``,
    set-aside records, experiment copy and plan), so ``harness run FILE --output DEST``
    resumes it and skips every stored run. Returns the number of run records written."""
    root, dest = Path(root), Path(dest)
    manifest(root)
    runs_dir = dest / "runs"
    if runs_dir.is_dir() and any(p.suffix == ".json" for p in runs_dir.iterdir()):
        raise HarnessError(f"{runs_dir} holds run records already: unpack into a new directory")
    from harness.experiment.store import write_json_atomic
    records = load_records(root)
    for record in records:
        run_id = record.get("run_id")
        if not isinstance(run_id, str) or not run_id or "/" in run_id:
            raise HarnessError(f"{root / RUNS_FILE}: a record has no usable run_id ({run_id!r})")
        write_json_atomic(runs_dir / f"{run_id}.json", record)
    for rel, record in load_kept(root):
        target = (dest / rel).resolve()
        if not str(target).startswith(str((dest / KEPT_DIR).resolve()) + os.sep):
            raise HarnessError(f"{root / KEPT_FILE}: path {rel!r} is outside {KEPT_DIR}/")
        write_json_atomic(target, record)
    for name in SMALL_FILES:
        if (root / name).exists():
            shutil.copyfile(root / name, dest / name)
    return len(records)
