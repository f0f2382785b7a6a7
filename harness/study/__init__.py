"""Studies: what a reproduction of a paper needs from the harness, and where studies are found.

A study is a package of the top-level ``studies`` folder (``studies/p001_cwl/``), found by
looking there: the harness never imports a study by name. Its module ``paper`` provides
``PAPER`` (a ``claims.Paper``: the key, e.g. ``"001"``, and the claim table), ``rows(records)``
(the claim rows our records fill), ``why_differ()``, ``ROWS_FROM`` (the experiment-name prefixes
the study page's rows are computed from; optionally ``ROWS_READ_FAILED``, those of them whose
failed runs are results too, read whole), ``report_section(rs, fig_dir, report, fmt)`` (its
part of an experiment's report), ``PAGE_FROM`` (the experiments of its ``records/`` its page is
made from) and optionally ``page_sections(sets)``, ``OUT_OF_SCOPE`` and ``RECORD_KEYS`` (by
experiment, the key paths its committed records keep: ``harness.experiment.archive.prune``).
An experiment belongs to the study whose ``PAPER.prefix`` (``paper001_``) starts its name.

Here: ``claims`` (a claim, our value beside it, a verdict), ``figures`` (line, bar and grid
figures), ``section`` (a study's part of an experiment's report), ``page`` (one page per study
over its experiments). ``HARNESS_STUDIES`` names other top-level packages to search (comma
separated), for studies kept outside this checkout.

May import: ``harness.errors``, ``harness.paths``, ``harness.experiment``, ``harness.analysis``.
"""
from __future__ import annotations

import importlib
import importlib.util
import os
import pkgutil
import sys
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Dict, List, Optional

from harness.analysis import report
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.experiment.results import ResultSet

__all__ = ["page_records", "study_folder", "study_keys", "study_module", "study_of",
           "study_section", "write_report"]

#: The top-level packages whose subpackages are studies.
DEFAULT_PACKAGES = "studies"
#: The module of a study that holds what the harness reads (``studies/p001_cwl/paper.py``).
INTERFACE = "paper"


def _import_top(top: str) -> Optional[ModuleType]:
    """The package ``top``; from the checkout's folder of that name when it is not on the
    path (an installed ``harness`` command runs outside the checkout), else None."""
    try:
        return importlib.import_module(top)
    except ModuleNotFoundError as e:
        if e.name != top:
            raise
    from harness.paths import code_root
    if not (code_root() / top / "__init__.py").is_file():
        return None
    sys.path.append(str(code_root()))
    return importlib.import_module(top)


@cache
def _studies(packages: str) -> Dict[str, str]:
    """Study key -> module name, for every study package under ``packages``."""
    found: Dict[str, str] = {}
    for top in (p.strip() for p in packages.split(",") if p.strip()):
        root = _import_top(top)
        if root is None:
            continue
        for info in pkgutil.iter_modules(getattr(root, "__path__", [])):
            if not info.ispkg:
                continue
            name = f"{top}.{info.name}.{INTERFACE}"
            if importlib.util.find_spec(name) is None:
                continue
            paper = getattr(importlib.import_module(name), "PAPER", None)
            if paper is None:
                continue
            if paper.key in found:
                raise HarnessError(f"two studies have key {paper.key!r}: {found[paper.key]} "
                                   f"and {name}")
            found[paper.key] = name
    return found


def studies() -> Dict[str, str]:
    """Study key -> its module (``{"001": "studies.p001_cwl.paper", ...}``)."""
    return _studies(os.environ.get("HARNESS_STUDIES", DEFAULT_PACKAGES))


def study_keys() -> List[str]:
    return sorted(studies())


def study_module(key: str) -> ModuleType:
    """The package of study ``key``; a clear error for a key no study has."""
    found = studies()
    if key not in found:
        raise HarnessError(f"study {key!r} is unknown: allowed {', '.join(sorted(found)) or 'none'}")
    return importlib.import_module(found[key])


def study_folder(path: Path) -> Optional[str]:
    """The key of the study whose package folder ``path`` is, else None."""
    here = Path(path).resolve()
    for key, module in studies().items():
        if Path(str(importlib.import_module(module).__file__)).parent.resolve() == here:
            return key
    return None


def page_records(key: str) -> List[Path]:
    """The experiments (``records/NAME``) study ``key``'s page is made from (its
    ``PAGE_FROM``, in order)."""
    module = study_module(key)
    folder = Path(str(module.__file__)).parent / "records"
    if not getattr(module, "PAGE_FROM", ()):
        raise HarnessError(f"study {key}: PAGE_FROM names no experiment of {folder}")
    return [folder / name for name in module.PAGE_FROM]


def study_of(name: str) -> str:
    """The key of the study an experiment's name belongs to (``"001"`` for
    ``paper001_cwl_sweep``), else ``""``."""
    for key, module in studies().items():
        if name.startswith(importlib.import_module(module).PAPER.prefix):
            return key
    return ""


def study_section(rs: ResultSet, report_path: Path, fmt: str = "png") -> str:
    """Markdown comparing the results with the study's paper (and the figures it draws)."""
    key = study_of(rs.name)
    if not key:
        return ""
    from harness.study import section as sections
    return sections.render(key, rs, report_path, fmt)


def write_report(root: Path, output: Optional[Path] = None, fmt: str = "png") -> Path:
    """A result set's report (``harness.analysis.report``), with its study's section when the
    experiment belongs to a study: what ``harness report`` and ``harness run`` write."""
    return report.write_report(root, output, fmt, sections=[study_section])
