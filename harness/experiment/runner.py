"""The sweep runner: execute every pending run once, store its record, survive interruptions.

The runner knows nothing about radios: it takes an executor callable
``execute(params, seed, *, run_id) -> dict`` (the real one is
``harness.experiment.execute.execute_run``), so the orchestration is testable on any host.
Runs execute one after another in this process, or, given a ``RunPool``
(``harness.parallel``), several at once elsewhere (VMs, processes, cluster workers) while
this process alone writes the store.
"""
from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import math
import os
import platform
import signal
import threading
import time
import traceback
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Generator, Iterator, List, Optional, Protocol, Tuple

import harness
from harness.errors import HarnessError, InvalidRun
from harness.experiment import lag
from harness.experiment.lag import Threshold
from harness.experiment.progress import Progress
from harness.experiment.revision import code_revision
from harness.experiment.schema import Experiment
from harness.experiment.store import RECORD_SCHEMA, RetryRule, Store
from harness.experiment.sweep import Run, expand, within_repetitions


class Executor(Protocol):
    """Runs one run (``harness.experiment.execute.execute_run``): its parameters, seed and id
    in, the measurement out (``flows`` at least, see ``check_result``)."""

    def __call__(self, params: Dict[str, Any], seed: int, *, run_id: str) -> Dict[str, Any]: ...


class RunPool(Protocol):
    """Executes runs elsewhere, several at once (``harness.parallel``)."""

    #: How many runs it executes at once.
    workers: int

    def records(self, exp: Experiment, runs: List[Run], progress: Progress
                ) -> Generator[Tuple[Run, Dict[str, Any]], None, None]:
        """Each run's record as it finishes (any order); calls ``progress.start`` when a
        run begins. Closing the iterator early (Ctrl-C, ``fail_fast``) abandons the runs
        still under way: none of them is yielded, so none is stored."""
        ...


#: Seconds a run costs beyond its traffic (build, settle, teardown): a first ETA guess.
SETUP_ESTIMATE = 5.0
#: Keys the runner writes; an executor result may not override them.
RESERVED = ("schema", "run_id", "experiment", "index", "repetition", "seed", "point", "params",
            "status", "error", "traceback", "timing")


@dataclass
class SweepResult:
    """How a sweep went: counts, the failed runs, and whether it was interrupted."""

    planned: int
    skipped: int = 0
    ok: int = 0
    failed: List[str] = field(default_factory=list)
    interrupted: bool = False
    stopped_early: bool = False

    @property
    def remaining(self) -> int:
        return self.planned - self.skipped - self.ok - len(self.failed)


def base_environment() -> Dict[str, Any]:
    """What the runner itself knows; the executor adds kernel, iperf3, native/VM, TCG/KVM."""
    return {"harness_version": harness.__version__, "code_revision": code_revision(),
            "python": platform.python_version(), "host": platform.platform()}


def check_result(result: Any) -> Dict[str, Any]:
    """Enforce the executor contract so a bad executor fails loudly, not in the plots later."""
    if not isinstance(result, dict):
        raise HarnessError(f"executor returned {type(result).__name__}, expected a dict")
    flows = result.get("flows")
    if not isinstance(flows, list) or not flows:
        raise HarnessError("executor result has no 'flows' list")
    for i, flow in enumerate(flows):
        if not isinstance(flow, dict):
            raise HarnessError(f"executor result flows[{i}] is not a dict")
        tput = flow.get("throughput_bps")
        if isinstance(tput, bool) or not isinstance(tput, (int, float)):
            raise HarnessError(f"executor result flows[{i}].throughput_bps is missing or "
                               "not a number")
    clash = [k for k in result if k in RESERVED]
    if clash:
        raise HarnessError(f"executor result uses reserved keys {clash}")
    return result


def _merge_measured(record: Dict[str, Any], measured: Dict[str, Any]) -> None:
    """Put an executor's measurement into the record: its environment joins the runner's, the
    rest is stored as given, never over the runner's own keys (an invalid run's evidence is
    not checked by ``check_result``)."""
    measured = dict(measured)
    record["environment"].update(measured.pop("environment", None) or {})
    record.update({k: v for k, v in measured.items() if k not in RESERVED})


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """``kill PID`` stops a sweep as cleanly as Ctrl-C does (the run is torn down, not stored)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: Any) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold Ctrl-C while a finished run's record is written, so a finished run is not lost."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT, signal.SIGTERM})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, old)


def run_sweep(exp: Experiment, store: Store, execute: Optional[Executor], *,
              runs: Optional[List[Run]] = None, quick: bool = False, fresh: bool = False,
              retry_failed: RetryRule = False, retry_lagged: Optional[Threshold] = None,
              fail_fast: bool = False, first_repetitions: Optional[int] = None,
              progress: Optional[Progress] = None,
              environment: Optional[Callable[[], Dict[str, Any]]] = None,
              on_record: Optional[Callable[[Dict[str, Any]], None]] = None,
              pool: Optional[RunPool] = None) -> SweepResult:
    """Run every pending run of ``exp`` into ``store``; see ``docs/experiments.md``.

    Runs execute here through ``execute``, or through ``pool`` when one is given.
    A run that raises is recorded as failed and the sweep goes on (unless ``fail_fast``).
    ``first_repetitions`` K: only runs of repetitions 0..K-1 execute (a first pass over every
    point); the later ones stay pending, counted in ``remaining``, for a rerun without it.
    Ctrl-C or SIGTERM inside a run: the executor tears down (its own ``finally``), nothing
    is stored for that run, and the result says ``interrupted``; rerunning resumes.
    """
    if (execute is None) == (pool is None):
        raise HarnessError("run_sweep needs an executor or a pool (exactly one)")
    runs = expand(exp, quick=quick) if runs is None else runs
    outcome = SweepResult(planned=len(runs))
    wanted = within_repetitions(runs, first_repetitions)
    store.lock()
    try:
        state = store.prepare(exp.text, runs, fresh=fresh, retry_failed=retry_failed,
                              retry_lagged=retry_lagged)
        if progress is None:
            est = (sum(r.expected_seconds() for r in wanted) / len(wanted) + SETUP_ESTIMATE
                   if wanted else None)
            # In a guest on virtual time its clock is not the user's: say so rather than
            # give an ETA that is off by the emulation's slowdown (docs/engine.md).
            guest = pool is None and os.environ.get("HARNESS_VM_CLOCK") == "virtual"
            progress = Progress(len(wanted), estimate=est,
                                workers=pool.workers if pool is not None else 1,
                                clock_name=" of guest time" if guest else "")
        if state.archived:
            progress.message(f"previous results moved to {state.archived}")
        elif state.changes and state.done:
            progress.message("experiment file changed since the stored runs (runs were added): "
                             + "; ".join(state.changes[:5]))
        lag_rule = lag.describe(retry_lagged) if retry_lagged is not None else ""
        if state.lagged:
            progress.message(f"{len(state.lagged)} stored run(s) had a medium lag p99 "
                             f"{lag_rule}: running them again (the old "
                             f"records go to {store.root / 'archive' / 'replaced'})")
        pending = [with_files(run, store) for run in wanted if run.run_id not in state.done]
        outcome.skipped = sum(run.run_id in state.done for run in runs)
        if len(wanted) > len(pending):
            progress.skip(len(wanted) - len(pending))
        if pool is not None:
            finished = pool.records(exp, pending, progress)
        else:
            assert execute is not None
            env = base_environment()
            if environment is not None:
                env.update(environment())
            finished = _one_after_another(exp, pending, execute, env, progress)
        with sigterm_as_interrupt(), contextlib.closing(finished):
            try:
                for run, record in finished:
                    progress.finish(record["status"], what=_step(run))
                    with _signals_deferred():
                        if run.run_id in state.lagged:
                            store.set_aside(run.run_id, f"medium lag p99 {lag_rule}; run again")
                        elif run.run_id in state.failed:
                            store.set_aside(run.run_id, "failed; run again (--retry-failed)")
                        store.write(record)
                    if record["status"] == "ok":
                        outcome.ok += 1
                    else:
                        outcome.failed.append(run.run_id)
                        progress.message(f"run {run.run_id} ({run.label()}) failed: "
                                         f"{record['error']}")
                    if on_record is not None:
                        on_record(record)
                    if fail_fast and record["status"] != "ok":
                        outcome.stopped_early = True
                        break
            except KeyboardInterrupt:
                outcome.interrupted = True
                under_way = [step.split(" ", 1) for step in progress.running]
                what = "; ".join(f"run {rid} ({label})" for rid, label in under_way) or "no run"
                progress.message(
                    f"interrupted during {what}: nothing stored for it; "
                    f"{outcome.skipped + outcome.ok + len(outcome.failed)} of "
                    f"{outcome.planned} runs are stored; run the same command to resume")
    finally:
        if progress is not None:
            progress.close()
        store.unlock()
    return outcome


#: The environment variable that hands the executor its run's folder of files (``Run.files``).
FILES_ENV = "HARNESS_RUN_FILES"


def with_files(run: Run, store: Store) -> Run:
    """The run with its folder of files when it writes any (``medium.pcap: true``): in the
    store, so that a capture outlives the guest that wrote it."""
    medium = run.params.get("medium") or {}
    if medium.get("pcap") is not True:
        return run
    return dataclasses.replace(run, files=str(store.root.resolve() / "files" / run.run_id))


@contextlib.contextmanager
def files_in_environment(run: Run) -> Iterator[None]:
    """``FILES_ENV`` names the run's folder (created) while it executes."""
    if run.files is None:
        yield
        return
    os.makedirs(run.files, exist_ok=True)
    before = os.environ.get(FILES_ENV)
    os.environ[FILES_ENV] = run.files
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(FILES_ENV, None)
        else:
            os.environ[FILES_ENV] = before


def _step(run: Run) -> str:
    """How progress names a run."""
    return f"{run.run_id} {run.label()}"


def _one_after_another(exp: Experiment, runs: List[Run], execute: Executor, env: Dict[str, Any],
                       progress: Progress) -> Generator[Tuple[Run, Dict[str, Any]], None, None]:
    for run in runs:
        progress.start(_step(run))
        yield run, execute_one(exp.name, run, execute, env)


def new_record(experiment: str, run: Run, env: Dict[str, Any]) -> Dict[str, Any]:
    """A run's record before its measurement: who it is (of which experiment), with what, where."""
    return {
        "schema": RECORD_SCHEMA, "run_id": run.run_id, "experiment": experiment,
        "index": run.index, "repetition": run.repetition, "seed": run.seed,
        "point": run.point, "params": run.params, "status": "ok", "error": None,
        "traceback": None, "environment": dict(env), "flows": [], "medium": {},
    }


def failed_record(experiment: str, run: Run, env: Dict[str, Any], error: str) -> Dict[str, Any]:
    """The record of a run that could not report its own (its worker or VM failed)."""
    record = new_record(experiment, run, env)
    record.update(status="failed", error=error,
                  timing={"started": _now(), "finished": _now(), "seconds": 0.0})
    return record


def execute_one(experiment: str, run: Run, execute: Executor, env: Dict[str, Any]
                ) -> Dict[str, Any]:
    """Execute one run of ``experiment`` here; its record, status ``ok`` or ``failed``
    (KeyboardInterrupt propagates: an interrupted run has no record)."""
    record = new_record(experiment, run, env)
    started = _now()
    t0 = time.monotonic()
    status = "ok"
    try:
        with files_in_environment(run):
            measured = execute(run.params, run.seed, run_id=run.run_id)
        _merge_measured(record, check_result(measured))
    except KeyboardInterrupt:
        raise
    except HarnessError as err:
        status = "failed"
        record.update(status=status, error=str(err))
        if isinstance(err, InvalidRun):  # measured, but it does not count: keep the evidence
            _merge_measured(record, err.measured)
    except Exception as err:  # a bug in one run must not end a night-long sweep
        status = "failed"
        record.update(status=status, error=f"{type(err).__name__}: {err}",
                      traceback=traceback.format_exc())
    finally:
        elapsed = time.monotonic() - t0
    record["timing"] = {"started": started, "finished": _now(), "seconds": round(elapsed, 3)}
    try:
        record = plain(record)
    except (TypeError, ValueError) as err:
        status = "failed"
        record = {k: v for k, v in record.items() if k in RESERVED or k == "environment"}
        record.update(status=status, error=f"executor result cannot be stored: {err}",
                      flows=[], medium={})
    return record


def plain(value: Any) -> Any:
    """JSON-ready copy: tuples to lists, NaN/inf to null (JSON has no NaN), objects rejected."""
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    raise TypeError(f"{type(value).__name__} value {value!r} is not JSON data")
