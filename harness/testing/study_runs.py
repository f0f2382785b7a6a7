"""Helpers of the studies' claim tests: run a study's experiment files through the real runner.

Quick tests run the ``*_quick.yaml`` variants into a temporary directory (CI). Slow tests run
the full files into their own ``output`` directory (``results/papers/...``), so a sweep made
with ``harness run`` is reused, and an interrupted slow test resumes where it stopped. When
that directory holds no records yet, the study's committed records of the same name
(experiment ``studies/<study>/records/<name>`` of its record file) are unpacked into it
first, so the slow claims are judged on them and only runs missing there are run.

An experiment is named by its file's stem; the file is ``experiments/<name>.yaml`` of one of
the studies ``harness.study`` finds.
"""
from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import yaml

from harness.paths import code_root

REPO = code_root()
#: Where an experiment's relative ``output`` lies when not under this checkout: a guest sees
#: the checkout read-only at a fixed path, and writes results at the host checkout's path.
OUTPUT_BASE_ENV = "HARNESS_OUTPUT_BASE"


def output_of(data: Mapping[str, Any]) -> Path:
    return Path(os.environ.get(OUTPUT_BASE_ENV) or REPO) / data["output"]


def study_dir(name: str) -> Path:
    """The folder of the study whose ``experiments/`` holds ``name``.yaml."""
    from harness.errors import HarnessError
    from harness.study import studies
    dirs = [Path(str(importlib.import_module(m).__file__)).parent for m in studies().values()]
    for d in dirs:
        if (d / "experiments" / f"{name}.yaml").is_file():
            return d
    raise HarnessError(f"experiment {name!r} is in no study's experiments/ "
                       f"(studies: {', '.join(d.name for d in dirs) or 'none'})")


def load(name: str) -> Dict[str, Any]:
    """A study's experiment file as a mapping."""
    return yaml.safe_load((study_dir(name) / "experiments" / f"{name}.yaml").read_text())


def records_dir(name: str, out: Path) -> Path:
    """Where the study that holds experiment ``name`` keeps the records of ``out``."""
    return study_dir(name) / "records" / out.name


#: Set to a directory to keep the quick suites' results there (resumable, for a report)
#: instead of pytest's temporary directories.
KEEP_ENV = "HARNESS_PAPERS_KEEP"


#: Failed runs are run once more before the suite gives up (e.g. an iperf3 server that never
#: came up, a verifier that judged a policy broken); the retry and the first error are printed.
RETRIES = 1


def run_file(name: str, output: Optional[Path] = None,
             outcome: Optional[Callable[[Mapping[str, Any]], bool]] = None):
    """Run (or resume) an experiment file; ``output`` None = the file's own ``output``.

    ``outcome`` names the failures that are a result of their point (paper 002: HWMP found no
    path, so no flow started): they are neither run again nor fatal; the claims read the
    others."""
    from harness.testing.fixtures import run_experiment_text
    data = load(name)
    keep = os.environ.get(KEEP_ENV)
    if output is not None and keep:
        output = Path(keep) / name
    out = Path(output) if output is not None else output_of(data)
    if output is None:
        from_archive(out, records_dir(name, out))
    rs = run_experiment_text(data, out, allow_failed=True)
    def broken(rec: Mapping[str, Any]) -> bool:
        return outcome is None or not outcome(rec)

    for _ in range(RETRIES):
        failed = [r for r in rs.failed if broken(r)]
        if not failed:
            break
        print(f"{len(failed)} run(s) failed; running them once more "
              f"(first error: {failed[0].get('error')})")
        rs = _retry_failed(data, out, broken)
    failed = [r for r in rs.failed if broken(r)]
    if failed:
        import pytest
        pytest.fail("experiment runs failed:\n" + "\n".join(
            f"  {r['run_id']} {r.get('point')}: {r.get('error')}" for r in failed))
    kept = len(rs.failed) - len(failed)
    if kept:
        print(f"{kept} failed run(s) kept as their point's outcome, not run again")
    return rs


def stored(name: str):
    """The records of ``name`` as they are stored (its output directory, else its study's
    record file), running nothing: a baseline a reading's test compares with when the file that
    made it takes days (002_retry_sweep) and the test needs one of its points."""
    from harness.experiment.results import load_results
    out = output_of(load(name))
    if (out / "runs").is_dir() and any((out / "runs").glob("*.json")):
        return load_results(out)
    return load_results(records_dir(name, out))  # committed with the study: missing is an error


def from_archive(out: Path, packed: Path) -> bool:
    """Unpack the committed experiment ``packed`` into ``out`` when ``out`` holds no records
    (stored run IDs are kept, so the runner skips them); True if it did."""
    from harness.experiment import archive
    runs = out / "runs"
    if not archive.is_packed(packed) or (runs.is_dir() and any(runs.glob("*.json"))):
        return False
    n = archive.unpack(packed, out)
    print(f"{n} run records of {packed} unpacked into {out}")
    return True


def _retry_failed(data: Dict[str, Any], out: Path,
                  which: Callable[[Mapping[str, Any]], bool]):
    """Rerun the stored failures of ``out`` that ``which`` accepts (the runner's
    ``retry_failed``)."""
    import sys

    from harness.experiment import schema
    from harness.experiment.execute import environment, execute_run
    from harness.experiment.progress import Progress
    from harness.experiment.results import load_results
    from harness.experiment.runner import run_sweep
    from harness.experiment.store import Store
    from harness.experiment.sweep import expand
    exp = schema.loads(yaml.safe_dump(dict(data, output=str(out)), sort_keys=False))
    runs = expand(exp)
    result = run_sweep(exp, Store(out), execute_run, runs=runs, retry_failed=which,
                       environment=environment,
                       progress=Progress(len(runs), stream=sys.stderr, tty=False))
    if result.interrupted:
        raise KeyboardInterrupt
    return load_results(out)


def not_reproduced(reason: str) -> Any:
    """The mark of a claim (or a reading of one) that does not reproduce in our emulation: a
    strict xfail, so the suite stays green while the claim fails and turns red the day it
    passes. ``reason`` states the paper's claim and our measured numbers."""
    import pytest
    return pytest.mark.xfail(strict=True, reason=reason)


def cases(ids: Sequence[str], failing: Mapping[str, str],
          values: Optional[Sequence[Any]] = None) -> List[Any]:
    """Parameters for ``pytest.mark.parametrize``: ``values`` (default: the ``ids``) under
    ``ids``, those whose id ``failing`` names marked ``not_reproduced`` with its reason."""
    import pytest
    values = list(ids) if values is None else list(values)
    unknown = sorted(set(failing) - set(ids))
    if len(values) != len(ids) or unknown:
        raise ValueError(f"{len(values)} values for ids {list(ids)}; reasons for unknown ids "
                         f"{unknown}")
    return [pytest.param(v, id=i, marks=[not_reproduced(failing[i])] if i in failing else [])
            for v, i in zip(values, ids)]


def show(series: Any, what: str, x_name: str, regime: Dict[str, Any]) -> None:
    """Print the table a claim is judged on (also when it passes)."""
    from harness.analysis import trends
    print(f"\n{what} by {x_name} ({', '.join(f'{k}={v}' for k, v in regime.items())})\n"
          + trends.table(trends.points(series), what, x_name))
