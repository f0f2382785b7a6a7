"""The runner's orchestration, with a pure-Python executor standing in for the emulation.

The SIGKILL tests run the runner in a child process and kill it between runs and inside a run,
then resume: every planned run must end up stored exactly once.
"""
from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
import textwrap
import time
from collections import Counter
from pathlib import Path
from typing import Any, Dict, List

import pytest

from harness.errors import HarnessError, InvalidRun
from harness.experiment import schema
from harness.experiment.progress import Progress
from harness.experiment.runner import run_sweep
from harness.experiment.store import Store
from harness.experiment.sweep import expand

REPO = Path(__file__).resolve().parents[2]

TEXT = """\
name: demo
topology: {builder: chain}
flows: [{src: first, dst: last, duration: 1}]
sweep:
  topology.hops: [1, 2, 3]
  topology.rts: [false, true]
repetitions: 2
"""


class Recorder:
    """A pure executor: throughput falls with hops; remembers every call."""

    def __init__(self, fail_hops: int = 0, interrupt_at: int = -1):
        self.calls: List[str] = []
        self.fail_hops = fail_hops
        self.interrupt_at = interrupt_at
        self.torn_down = 0

    def __call__(self, params: Dict[str, Any], seed: int, *, run_id: str) -> Dict[str, Any]:
        self.calls.append(run_id)
        try:
            if len(self.calls) - 1 == self.interrupt_at:
                raise KeyboardInterrupt
            hops = params["topology"]["hops"]
            if hops == self.fail_hops:
                raise HarnessError(f"cannot build chain of {hops} hops")
            return {"environment": {"kernel": "6.1-test", "where": "test"},
                    "flows": [{"throughput_bps": 2e6 / hops, "retransmits": hops,
                               "rtt_mean_ms": 5.0 * hops, "samples": [{"t": 0.0}]}],
                    "medium": {"frames": 10 * hops}}
        finally:
            self.torn_down += 1


def quiet() -> Progress:
    return Progress(0, stream=io.StringIO(), tty=False)


def setup(tmp_path: Path):
    exp = schema.loads(TEXT)
    runs = expand(exp)
    progress = Progress(len(runs), stream=io.StringIO(), tty=False)
    return exp, runs, Store(tmp_path / "out"), progress


def test_every_run_stored_with_parameters_environment_results_timing(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    executor = Recorder()
    result = run_sweep(exp, store, executor, progress=progress,
                       environment=lambda: {"accel": "tcg"})
    assert (result.ok, result.failed, result.skipped, result.interrupted) == (12, [], 0, False)
    assert executor.calls == [r.run_id for r in runs]
    rec = store.load(runs[5].run_id)
    assert rec["status"] == "ok" and rec["error"] is None
    assert rec["params"] == runs[5].params and rec["point"] == runs[5].point
    assert rec["seed"] == runs[5].seed and rec["experiment"] == "demo"
    assert rec["environment"]["kernel"] == "6.1-test" and rec["environment"]["accel"] == "tcg"
    assert rec["environment"]["python"] and rec["environment"]["harness_version"]
    assert rec["flows"][0]["throughput_bps"] == pytest.approx(2e6 / 3)
    assert rec["medium"] == {"frames": 30}
    assert rec["timing"]["seconds"] >= 0 and rec["timing"]["started"].endswith("+00:00")
    lines = progress.stream.getvalue().splitlines()
    assert lines[0].startswith("[1/12] ok ") and lines[-1].startswith("[12/12] ok ")


def test_rerun_skips_everything_stored(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    run_sweep(exp, store, Recorder(), progress=progress)
    again = Recorder()
    result = run_sweep(exp, store, again, progress=quiet())
    assert again.calls == [] and result.skipped == 12 and result.ok == 0


def test_a_failing_run_is_recorded_and_the_sweep_goes_on(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    result = run_sweep(exp, store, Recorder(fail_hops=2), progress=progress)
    failing = [r.run_id for r in runs if r.params["topology"]["hops"] == 2]
    assert result.failed == failing and result.ok == 8
    rec = store.load(failing[0])
    assert rec["status"] == "failed" and rec["error"] == "cannot build chain of 2 hops"
    assert rec["flows"] == []
    assert "failed: cannot build chain of 2 hops" in progress.stream.getvalue()
    # Failed runs are kept on resume unless asked to retry them.
    retry = Recorder()
    run_sweep(exp, store, retry, progress=quiet(), retry_failed=True)
    assert retry.calls == failing
    # The failed records are kept beside the redo, as a lagged run's are.
    kept = sorted((store.root / "archive" / "replaced").glob("*.json"))
    assert sorted(p.name.split(".")[0] for p in kept) == sorted(failing)
    old = json.loads(kept[0].read_text())
    assert old["status"] == "failed" and old["error"] == "cannot build chain of 2 hops"
    assert old["replaced_because"] == "failed; run again (--retry-failed)"
    assert store.load(failing[0])["status"] == "ok"


def test_an_invalid_run_is_failed_but_keeps_what_was_measured(tmp_path):
    """A policy that did not hold fails the run; its samples stay, to explain the failure."""
    exp, runs, store, progress = setup(tmp_path)
    measured = {"environment": {"kernel": "6.1-test"}, "medium": {"frames": 7},
                "flows": [{"throughput_bps": 1e6, "ss": [{"t": 3.0, "cwnd": 21}]}],
                "status": "ok"}  # a reserved key in the evidence must not win

    def invalid(params, seed, *, run_id):
        raise InvalidRun("cwnd clamp 20 did not hold", measured=measured)

    result = run_sweep(exp, store, invalid, progress=progress, runs=runs[:1])
    rec = store.load(runs[0].run_id)
    assert result.failed == [runs[0].run_id]
    assert rec["status"] == "failed" and rec["error"] == "cwnd clamp 20 did not hold"
    assert rec["flows"][0]["ss"] == [{"t": 3.0, "cwnd": 21}] and rec["medium"] == {"frames": 7}
    assert rec["environment"]["kernel"] == "6.1-test" and rec["environment"]["python"]


def test_fail_fast_stops_after_the_first_failure(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    result = run_sweep(exp, store, Recorder(fail_hops=1), progress=progress, fail_fast=True)
    assert result.failed == [runs[0].run_id] and result.stopped_early
    assert store.existing_ids() == {runs[0].run_id}


def test_a_bug_in_the_executor_is_a_failed_run_with_traceback(tmp_path):
    exp, runs, store, progress = setup(tmp_path)

    def broken(params, seed, *, run_id):
        return {}["missing"]

    result = run_sweep(exp, store, broken, progress=progress)
    rec = store.load(runs[0].run_id)
    assert len(result.failed) == 12
    assert rec["error"] == "KeyError: 'missing'" and "Traceback" in rec["traceback"]


@pytest.mark.parametrize("returned, problem", [
    (None, "executor returned NoneType, expected a dict"),
    ({"flows": []}, "no 'flows' list"),
    ({"flows": [{"throughput_bps": "fast"}]}, "flows[0].throughput_bps is missing or not a number"),
    ({"flows": [{"throughput_bps": 1.0}], "status": "ok"}, "reserved keys ['status']"),
    ({"flows": [{"throughput_bps": 1.0, "obj": object()}]}, "cannot be stored"),
])
def test_executor_contract_violations_fail_the_run(tmp_path, returned, problem):
    exp, runs, store, progress = setup(tmp_path)
    run_sweep(exp, store, lambda p, s, *, run_id: returned, progress=progress,
              runs=runs[:1])
    rec = store.load(runs[0].run_id)
    assert rec["status"] == "failed" and problem in rec["error"]


def test_nan_becomes_null_and_tuples_lists(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    run_sweep(exp, store, lambda p, s, *, run_id: {
        "flows": [{"throughput_bps": 1.0, "rtt_mean_ms": math.nan, "pos": (1, 2)}]},
        progress=progress, runs=runs[:1])
    flow = store.load(runs[0].run_id)["flows"][0]
    assert flow["rtt_mean_ms"] is None and flow["pos"] == [1, 2]


def test_ctrl_c_inside_a_run_stores_nothing_for_it_and_resume_finishes(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    executor = Recorder(interrupt_at=4)
    result = run_sweep(exp, store, executor, progress=progress)
    assert result.interrupted and result.ok == 4 and result.remaining == 8
    assert executor.torn_down == 5  # the interrupted run's own clean-up ran
    assert store.existing_ids() == {r.run_id for r in runs[:4]}
    assert list(store.runs_dir.glob(".*")) == []
    assert "run the same command to resume" in progress.stream.getvalue()
    store.lock()  # the runner released its lock
    store.unlock()
    resume = Recorder()
    result = run_sweep(exp, store, resume, progress=quiet())
    assert resume.calls == [r.run_id for r in runs[4:]]
    assert store.existing_ids() == {r.run_id for r in runs}


CHILD = textwrap.dedent("""\
    import os, signal, sys, time
    from harness.experiment import load, Store, run_sweep
    from harness.experiment.progress import Progress

    # Ctrl-C raises KeyboardInterrupt, as in a terminal: a test session started in the
    # background by a non-interactive shell inherits SIGINT ignored, and Python keeps that.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    exp_file, out, log, mode, target = sys.argv[1:6]

    def note(text):
        with open(log, "a") as fh:
            fh.write(text + "\\n")
            fh.flush()
            os.fsync(fh.fileno())

    def execute(params, seed, *, run_id):
        note("start " + run_id)
        if mode == "inside" and run_id == target:
            note("inside " + run_id)
            time.sleep(60)
        return {"flows": [{"throughput_bps": 1e6 / params["topology"]["hops"]}]}

    def on_record(record):
        note("stored " + record["run_id"])
        if mode == "between" and record["run_id"] == target:
            note("between " + record["run_id"])
            time.sleep(60)

    exp = load(exp_file)
    run_sweep(exp, Store(out), execute, on_record=on_record,
              progress=Progress(0, stream=sys.stderr, tty=False))
    note("finished")
""")


def _spawn(tmp_path: Path, mode: str, target: str) -> subprocess.Popen:
    script = tmp_path / "child.py"
    script.write_text(CHILD)
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen([sys.executable, str(script), str(tmp_path / "exp.yaml"),
                             str(tmp_path / "out"), str(tmp_path / "log"), mode, target],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _wait_for(path: Path, line: str, proc: subprocess.Popen, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and line in path.read_text().splitlines():
            return
        if proc.poll() is not None:
            raise AssertionError(f"child exited early: {proc.stderr.read().decode()}")
        time.sleep(0.02)
    proc.kill()
    raise AssertionError(f"child never wrote {line!r}")


@pytest.mark.parametrize("mode", ["between", "inside"])
def test_sigkill_then_resume_loses_nothing_and_repeats_nothing(tmp_path, mode):
    (tmp_path / "exp.yaml").write_text(TEXT)
    runs = expand(schema.loads(TEXT))
    target = runs[4].run_id
    child = _spawn(tmp_path, mode, target)
    _wait_for(tmp_path / "log", f"{mode} {target}", child)
    child.kill()  # SIGKILL: no handler, no clean-up, no flush
    child.wait(10)
    store = Store(tmp_path / "out")
    stored_before = store.existing_ids()
    expected_before = {r.run_id for r in runs[:5 if mode == "between" else 4]}
    assert stored_before == expected_before
    resumed = _spawn(tmp_path, "none", "")
    assert resumed.wait(60) == 0, resumed.stderr.read().decode()
    log = (tmp_path / "log").read_text().splitlines()
    assert log[-1] == "finished"
    stored = Counter(l.split()[1] for l in log if l.startswith("stored "))
    assert set(stored) == {r.run_id for r in runs}        # none lost
    assert set(stored.values()) == {1}                    # none repeated
    started = Counter(l.split()[1] for l in log if l.startswith("start "))
    assert started[target] == (2 if mode == "inside" else 1)  # only the killed run reran
    assert store.existing_ids() == {r.run_id for r in runs}
    for run in runs:
        assert json.loads(store.record_path(run.run_id).read_text())["status"] == "ok"


@pytest.mark.parametrize("signum", ["SIGINT", "SIGTERM"])
def test_ctrl_c_or_kill_inside_a_run_stops_cleanly(tmp_path, signum):
    import signal
    (tmp_path / "exp.yaml").write_text(TEXT)
    runs = expand(schema.loads(TEXT))
    target = runs[4].run_id
    child = _spawn(tmp_path, "inside", target)
    _wait_for(tmp_path / "log", f"inside {target}", child)
    child.send_signal(getattr(signal, signum))
    assert child.wait(10) == 0
    err = child.stderr.read().decode()
    assert f"interrupted during run {target}" in err and "4 of 12 runs are stored" in err
    assert (tmp_path / "log").read_text().splitlines()[-1] == "finished"
    store = Store(tmp_path / "out")
    assert store.existing_ids() == {r.run_id for r in runs[:4]}
    assert list(store.runs_dir.glob(".*")) == []


class LaggedRecorder(Recorder):
    """As Recorder, with a medium delivery lag p99 of 3 ms, or 25 ms on 3-hop runs."""

    def __call__(self, params, seed, *, run_id):
        result = super().__call__(params, seed, run_id=run_id)
        p99_us = 25000.0 if params["topology"]["hops"] == 3 else 3000.0
        result["medium"] = {"summary": {"lag_us": {"p50": 500.0, "p99": p99_us}}}
        return result


def test_retry_lagged_reruns_only_runs_above_the_threshold_and_keeps_their_old_records(tmp_path):
    exp, runs, store, progress = setup(tmp_path)
    run_sweep(exp, store, LaggedRecorder(), progress=progress)
    lagged = [r.run_id for r in runs if r.params["topology"]["hops"] == 3]
    again = Recorder()  # its records carry no lag: a redo clears the flag
    out = quiet()
    result = run_sweep(exp, store, again, progress=out, retry_lagged=10.0)
    assert again.calls == lagged and result.ok == len(lagged) and result.skipped == 8
    assert "4 stored run(s) had a medium lag p99 above 10 ms" in out.stream.getvalue()
    kept = sorted((store.root / "archive" / "replaced").glob("*.json"))
    assert sorted(p.name.split(".")[0] for p in kept) == sorted(lagged)
    old = json.loads(kept[0].read_text())
    assert old["medium"]["summary"]["lag_us"]["p99"] == 25000.0
    assert old["replaced_because"] == "medium lag p99 above 10 ms; run again"
    # Nothing above the threshold any more: the next resume runs nothing.
    third = Recorder()
    run_sweep(exp, store, third, progress=quiet(), retry_lagged=10.0)
    assert third.calls == []


def test_retry_lagged_auto_reruns_runs_far_above_their_kind_only(tmp_path):
    """3-hop runs lag 25 ms, the rest 3 ms. A kind is a point without its policy keys (here
    hops and rts: two repetitions each), so the uniformly slow 3-hop runs are not redone; a
    2-hop run at 20 ms beside its 3 ms twin is, and the twin is not."""
    exp, runs, store, progress = setup(tmp_path)
    run_sweep(exp, store, LaggedRecorder(), progress=progress)
    again = Recorder()
    run_sweep(exp, store, again, progress=quiet(), retry_lagged="auto")
    assert again.calls == []
    target = next(r.run_id for r in runs if r.params["topology"]["hops"] == 2
                  and r.params["topology"]["rts"])
    rec = store.load(target)
    rec["medium"]["summary"]["lag_us"]["p99"] = 20000.0
    store.write(rec)
    out = quiet()
    fourth = Recorder()
    run_sweep(exp, store, fourth, progress=out, retry_lagged="auto")
    assert fourth.calls == [target]
    assert "above 2 x the median of the others of its kind" in out.stream.getvalue()


def test_a_run_with_a_capture_gets_a_folder_in_the_store(tmp_path):
    """``medium.pcap: true``: the executor is told (FILES_ENV) of ``files/<run_id>`` in the
    store, created, and only while its run executes; runs without a capture get none."""
    from harness.experiment.runner import FILES_ENV
    text = TEXT.replace("topology: {builder: chain}",
                        "topology: {builder: chain}\nmedium: {pcap: true}")
    exp = schema.loads(text)
    store = Store(tmp_path / "out")
    seen: Dict[str, Any] = {}

    def executor(params: Dict[str, Any], seed: int, *, run_id: str) -> Dict[str, Any]:
        folder = os.environ.get(FILES_ENV)
        seen[run_id] = folder and Path(folder).is_dir() and Path(folder)
        return {"flows": [{"throughput_bps": 1.0}]}

    run_sweep(exp, store, executor, progress=quiet())
    assert len(seen) == 12
    assert seen == {rid: (tmp_path / "out" / "files" / rid).resolve() for rid in seen}
    assert FILES_ENV not in os.environ

    plain = Store(tmp_path / "plain")
    seen.clear()
    run_sweep(schema.loads(TEXT), plain, executor, progress=quiet())
    assert len(seen) == 12 and not any(seen.values())
