"""Committed run records: every experiment of a folder in one compressed file per engine version.

A live sweep writes one JSON file per run (``runs/<id>.json``, atomically, so that a killed
runner loses at most the run in progress). Records kept in git are packed instead: a folder
(``studies/<study>/records/``, ``results-archive/labs/``) holds one file per engine version,
``<engine>-<kernel series>.jsonl.xz`` (``qemu-6.1.jsonl.xz``), named from the records'
``environment`` (``engine_version``). It is xz-compressed JSON, one object a line, each but the
first starting with its experiment's name (the name of the results directory it came from)::

    {"format": 2, "engine": "qemu-6.1", "kernels": ["6.1.0-56-amd64", ...]}   the header
    {"experiment": NAME, "yaml": ..., "plan": {...}, "manifest": {...}}       one per experiment
    {"experiment": NAME, "run": RECORD}                                       its run records
    {"experiment": NAME, "kept": PATH, "record": RECORD}                      records set aside

``yaml`` is the runner's experiment copy, ``plan`` its plan, ``kept`` what it set aside
(``archive/replaced/...``); ``manifest`` counts runs and kept records, names where the reports
go (``reports``, relative to ``FOLDER/NAME``) and the key paths the records keep (``keep``,
``prune``; null: all), so a file holds what the readings read, not every per-interval sample.
``FOLDER/NAME`` is the experiment's address wherever a results directory is expected
(``harness report studies/p001_cwl/records/001_cwl_sweep``, ``load_results``, ``Store``:
read-only); ``unpack`` gives back a results directory that ``harness run`` resumes.

``pack`` rewrites the file of the records' engine version (temporary file and rename), keeping
its other experiments, and takes the packed experiments out of the folder's files of other
engine versions (a file left empty goes): an experiment lives in one file, its engine's,
replaced when the engine changes. Same records, same bytes.
"""
from __future__ import annotations

import json
import lzma
import os
import re
from functools import lru_cache
from pathlib import Path
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence, Tuple

from harness.errors import HarnessError

FORMAT = 2
SUFFIX = ".jsonl.xz"
#: Files of a results directory kept as they are, and where the runner keeps set-aside records.
EXPERIMENT_FILE, PLAN_FILE, KEPT_DIR = "experiment.yaml", "plan.json", "archive"
#: What every pruned record keeps: which run of what, with which parameters, how it ended, where.
IDENTITY = ("schema", "run_id", "experiment", "index", "repetition", "seed", "point", "params",
            "status", "error", "environment")
_HEAD = '{"experiment":'

Entry = Dict[str, Any]


def _line(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), allow_nan=False) + "\n"


def prune(value: Any, paths: Iterable[str]) -> Any:
    """``value`` (a record) with only the key paths ``paths`` name. A path is keys joined by
    ``/`` (``flows/ss/cwnd``), ``*`` standing for any one key; lists are transparent (their
    items have the list's path). A key a path ends at is kept whole, a key a longer path passes
    through keeps what the rest of the path names, every other key goes; key order stays."""
    trie: Dict[str, Any] = {}
    for path in paths:
        node = trie
        for part in path.split("/"):
            node = node.setdefault(part, {})
        node[""] = {}
    return _prune(value, trie)


def _merge(a: Dict[str, Any], b: Dict[str, Any]) -> Dict[str, Any]:
    return {**a, **{k: _merge(a[k], v) if k in a else v for k, v in b.items()}}


def _prune(value: Any, trie: Dict[str, Any]) -> Any:
    if isinstance(value, list):
        return [_prune(v, trie) for v in value]
    if not isinstance(value, dict):
        return value
    out = {}
    for key, item in value.items():
        node = _merge(trie.get(key, {}), trie.get("*", {})) if "*" in trie else trie.get(key)
        if node:
            out[key] = item if "" in node else _prune(item, node)
    return out


def engine_version(records: Iterable[Dict[str, Any]]) -> str:
    """``<engine>-<kernel major.minor>`` of records, from their ``environment``: the engine the
    runner names (before it named one: ``qemu`` in a VM, else ``native``) and the (guest)
    kernel's series; an error naming them when records come from several."""
    found: Dict[str, int] = {}
    for rec in records:
        env = rec.get("environment") or {}
        series = re.match(r"\d+\.\d+", str(env.get("kernel", "")))
        name = "-".join((env.get("engine") or ("qemu" if env.get("where") == "vm" else "native"),
                         series.group() if series else "unknown"))
        found[name] = found.get(name, 0) + 1
    if len(found) != 1:
        raise HarnessError("records of one file come from one engine version; these come from "
                           + (", ".join(f"{k} ({n} runs)" for k, n in sorted(found.items()))
                              or "none"))
    return next(iter(found))


def record_files(folder: os.PathLike) -> List[Path]:
    """The record files of a folder, in name order."""
    return sorted(Path(folder).glob("*" + SUFFIX))


def is_packed(root: os.PathLike) -> bool:
    """True when ``root`` is ``FOLDER/NAME`` of a folder with record files, not a results
    directory (whether the files hold ``NAME`` is asked when it is read)."""
    root = Path(root)
    return not (root / "runs").is_dir() and bool(record_files(root.parent))


@lru_cache(maxsize=4)
def _lines(path: Path, stamp: Tuple[int, int]) -> Dict[str, List[str]]:
    """Each experiment's lines of a record file, not yet parsed (an experiment is parsed when
    it is read, so no two readers share a record)."""
    try:
        with lzma.open(path, "rt") as fh:
            header = json.loads(fh.readline() or "null")
            if not isinstance(header, dict) or header.get("format") != FORMAT:
                raise ValueError(f"format {header.get('format') if isinstance(header, dict) else header!r}"
                                 f" is not one this harness reads ({FORMAT})")
            groups: Dict[str, List[str]] = {}
            for text in fh:
                if not text.startswith(_HEAD):
                    raise ValueError(f"a line does not start with {_HEAD}")
                groups.setdefault(json.JSONDecoder().raw_decode(text, len(_HEAD))[0], []).append(text)
    except (OSError, EOFError, lzma.LZMAError, ValueError) as err:
        raise HarnessError(f"{path}: not a readable record file ({err})") from None
    return groups


def read_file(path: os.PathLike) -> Dict[str, List[str]]:
    """Experiment name -> its lines, of record file ``path`` (read once while it is unchanged)."""
    path = Path(path)
    st = path.stat()
    return _lines(path.resolve(), (st.st_mtime_ns, st.st_size))


def _parse(path: Path, name: str, lines: List[str], records: bool = True) -> Entry:
    try:
        items = [json.loads(text) for text in (lines if records else lines[:1])]
        if not records:
            return items[0]
        entry = dict(items[0], runs=[i["run"] for i in items if "run" in i],
                     kept=[(i["kept"], i["record"]) for i in items if "kept" in i])
        if (len(entry["runs"]), len(entry["kept"])) != (entry["manifest"]["runs"],
                                                        entry["manifest"]["kept"]):
            raise ValueError("its records do not match its manifest's counts")
    except (ValueError, KeyError, TypeError) as err:
        raise HarnessError(f"{path}: experiment {name} is not readable ({err})") from None
    return entry


def entry(root: os.PathLike, records: bool = True) -> Entry:
    """Experiment ``FOLDER/NAME`` of FOLDER's record files: ``yaml``, ``plan``, ``manifest``,
    and unless ``records`` is false ``runs`` (in run order) and ``kept`` (path, record); a
    one-line error when no file (or more than one) holds it."""
    root = Path(root)
    files = record_files(root.parent)
    holding = [p for p in files if root.name in read_file(p)]
    if len(holding) != 1:
        held = sorted({n for p in files for n in read_file(p)})
        raise HarnessError(
            f"{root}: " + (f"no experiment {root.name!r} in {', '.join(p.name for p in files)}"
                           f" (they hold {', '.join(held) or 'none'})" if not holding else
                           f"{root.name!r} is in {', '.join(p.name for p in holding)}: keep one"))
    return _parse(holding[0], root.name, read_file(holding[0])[root.name], records)


def _json_files(base: Path, pattern: str) -> List[Tuple[str, Dict[str, Any]]]:
    out = []
    for path in sorted(base.glob(pattern)) if base.is_dir() else []:
        if not path.name.startswith("."):
            try:
                out.append((path.relative_to(base.parent).as_posix(), json.loads(path.read_text())))
            except (OSError, ValueError) as err:
                raise HarnessError(f"{path}: not a run record ({err})") from None
    return out


def _from_results(src: Path, folder: Path, keep: Optional[Sequence[str]],
                  reports: Path) -> Entry:
    """Experiment ``src.name`` of results directory ``src``, its records pruned to ``keep``."""
    if not (src / "runs").is_dir():
        raise HarnessError(f"{src} is not a results directory (no runs/ inside)",
                           hint="pack the output directory of `harness run`")
    runs = sorted((r for _, r in _json_files(src / "runs", "*.json")),  # in run order
                  key=lambda r: (r.get("repetition", 0), r.get("index", 0), r.get("run_id", "")))
    if not runs:
        raise HarnessError(f"{src / 'runs'} holds no run records")
    if len({r.get("run_id") for r in runs}) != len(runs):
        raise HarnessError(f"{src / 'runs'}: a run_id occurs twice")
    kept = _json_files(src / KEPT_DIR, "**/*.json")
    paths = None if keep is None else IDENTITY + tuple(p for p in keep if p not in IDENTITY)
    cut = (lambda r: r) if paths is None else (lambda r: prune(r, paths))
    plan, copy = src / PLAN_FILE, src / EXPERIMENT_FILE
    where = os.path.relpath(os.path.abspath(reports), os.path.abspath(folder / src.name))
    return {"yaml": copy.read_text() if copy.exists() else None,
            "plan": json.loads(plan.read_text()) if plan.exists() else None,
            "manifest": {"runs": len(runs), "kept": len(kept), "reports": Path(where).as_posix(),
                         "keep": paths and list(paths)},
            "runs": [cut(r) for r in runs], "kept": [(p, cut(r)) for p, r in kept]}


def _write(path: Path, entries: Dict[str, Entry]) -> None:
    """Write a record file through a temporary file and a rename (same entries, same bytes)."""
    kernels = {str((r.get("environment") or {}).get("kernel")) for e in entries.values()
               for r in e["runs"]}
    lines = [_line({"format": FORMAT, "engine": path.name[:-len(SUFFIX)],
                    "kernels": sorted(kernels)})]
    for name in sorted(entries):
        e = entries[name]
        lines.append(_line({"experiment": name, **{k: e[k] for k in ("yaml", "plan", "manifest")}}))
        lines += [_line({"experiment": name, "run": r}) for r in e["runs"]]
        lines += [_line({"experiment": name, "kept": p, "record": r}) for p, r in e["kept"]]
    tmp = path.with_name(f".{path.name}.tmp.{os.getpid()}")
    tmp.write_bytes(lzma.compress("".join(lines).encode(), preset=9 | lzma.PRESET_EXTREME))
    os.replace(tmp, path)


def pack(folder: os.PathLike, sources: Sequence[os.PathLike], *,
         keep: Optional[Mapping[str, Sequence[str]]] = None,
         reports: Optional[os.PathLike] = None) -> Path:
    """Pack results directories ``sources`` (one experiment each, named as its directory) into
    FOLDER's record file of their engine version; returns the file. ``keep``: by experiment,
    the key paths its records keep besides ``IDENTITY`` (an experiment it does not name keeps
    all). ``reports``: the directory under which each experiment's reports go (default: where
    they went before, else its results directory)."""
    folder, srcs = Path(folder), [Path(s) for s in sources]
    if len({s.name for s in srcs}) != len(srcs):
        raise HarnessError("two results directories of one name: " + ", ".join(map(str, srcs)))
    new = {s.name: _from_results(s, folder, (keep or {}).get(s.name),
                                 Path(reports) / s.name if reports else s) for s in srcs}
    target = folder / f"{engine_version(r for e in new.values() for r in e['runs'])}{SUFFIX}"
    entries: Dict[str, Entry] = {}
    for path in record_files(folder):
        old = {n: _parse(path, n, lines) for n, lines in read_file(path).items()}
        for name in set(old) & set(new) if reports is None else ():
            new[name]["manifest"]["reports"] = old[name]["manifest"]["reports"]
        rest = {n: e for n, e in old.items() if n not in new}
        if path == target:
            entries = rest
        elif len(rest) < len(old):  # an experiment moves to its new engine's file
            _write(path, rest) if rest else path.unlink()
    folder.mkdir(parents=True, exist_ok=True)
    _write(target, {**entries, **new})
    return target


def unpack(root: os.PathLike, dest: os.PathLike) -> int:
    """Write experiment ``FOLDER/NAME`` back as a results directory ``dest`` (``runs/<id>.json``,
    set-aside records, experiment copy and plan), so ``harness run FILE --output DEST`` resumes
    it and skips every stored run. Returns the number of run records written."""
    from harness.experiment.store import write_json_atomic, write_text_atomic
    e, dest = entry(root), Path(dest)
    runs_dir = dest / "runs"
    if runs_dir.is_dir() and any(p.suffix == ".json" for p in runs_dir.iterdir()):
        raise HarnessError(f"{runs_dir} holds run records already: unpack into a new directory")
    for record in e["runs"]:
        run_id = record.get("run_id")
        if not isinstance(run_id, str) or not run_id or "/" in run_id:
            raise HarnessError(f"{root}: a record has no usable run_id ({run_id!r})")
        write_json_atomic(runs_dir / f"{run_id}.json", record)
    for rel, record in e["kept"]:
        target = (dest / rel).resolve()
        if not str(target).startswith(str((dest / KEPT_DIR).resolve()) + os.sep):
            raise HarnessError(f"{root}: set-aside record {rel!r} is outside {KEPT_DIR}/")
        write_json_atomic(target, record)
    if e["yaml"] is not None:
        write_text_atomic(dest / EXPERIMENT_FILE, e["yaml"])
    if e["plan"] is not None:
        write_json_atomic(dest / PLAN_FILE, e["plan"])
    return len(e["runs"])
