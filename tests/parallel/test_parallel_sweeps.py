"""Sweeps that run several emulations at once, driven from this host as a user would:
``harness run --jobs 2`` (two job runners, a fresh guest per run) and
``harness run --cluster local:2`` (two Dask workers on this machine).

    experiment (2 runs) ──► harness run ──► job runner / Dask worker 1 ── run A ──┐
                                        └─► job runner / Dask worker 2 ── run B ──┴─► one store

Each test runs a real two-run sweep (one-hop and two-hop 802.11b chains, 4 s flows) and checks
the store: every run once, ok, with its clock named; a second invocation runs nothing again.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

pytestmark = pytest.mark.parallel

EXPERIMENT = """\
name: parallel_pair
topology: {builder: chain, phy: b, rate: 11, spacing: 200}
flows: [{src: first, dst: last, duration: 4}]
sweep:
  topology.hops: [1, 2]
repetitions: 1
seed: 7
output: results/parallel_pair
"""


def harness(*args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True, text=True,
                          timeout=timeout)


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    path = tmp_path / "pair.yaml"
    path.write_text(EXPERIMENT)
    return path


def records(out: Path) -> List[dict]:
    return [json.loads(p.read_text()) for p in sorted((out / "runs").glob("*.json"))]


def vm_folders() -> set:
    """UML run folders whose harness process is gone (what ``harness clean`` would remove): a
    run that cleans up after itself adds none."""
    from harness.vm.uml import guests_left
    return set(guests_left(None))


#: What a job runner says when it starts (once per runner).
STARTED = ("a fresh UML guest per run",)


def check_store(out: Path, proc: subprocess.CompletedProcess) -> List[dict]:
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = records(out)
    assert len(got) == 2, proc.stderr[-3000:]
    assert sorted(r["params"]["topology"]["hops"] for r in got) == [1, 2]
    for r in got:
        assert r["status"] == "ok", r["error"]
        assert r["flows"][0]["throughput_bps"] > 100e3, r["flows"]
        assert r["environment"]["clock"] in ("virtual", "realtime")
    return got


def test_jobs_two_runs_each_run_once_into_one_store(experiment, tmp_path):
    out = tmp_path / "out"
    before = vm_folders()
    proc = harness("run", str(experiment), "--jobs", "2", "--output", str(out), "--no-report")
    got = check_store(out, proc)
    if "job runner" in proc.stderr:  # a guest path: each runner started its own guests
        assert sum(proc.stderr.count(s) for s in STARTED) == 2, proc.stderr
        assert {r["environment"]["clock"] for r in got} == {"virtual"}
    again = harness("run", str(experiment), "--jobs", "2", "--output", str(out), "--no-report")
    assert again.returncode == 0 and "0 ok, 0 failed, 2 already stored" in again.stderr, again.stderr
    assert not any(s in again.stderr for s in STARTED)  # nothing left to run: no guest
    assert vm_folders() <= before


def ctrl_c_as_in_a_terminal() -> None:
    """In the child before exec: SIGINT at its default, so that Python turns it into
    KeyboardInterrupt as in a terminal. A test session started in the background by a
    non-interactive shell inherits SIGINT ignored, and a Python child keeps that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def test_ctrl_c_stores_nothing_of_the_runs_under_way_and_resume_finishes(experiment, tmp_path):
    out = tmp_path / "out"
    before = vm_folders()
    proc = subprocess.Popen([sys.executable, "-m", "harness", "run", str(experiment), "--jobs",
                             "2", "--output", str(out), "--no-report"],
                            stderr=subprocess.PIPE, text=True, preexec_fn=ctrl_c_as_in_a_terminal)
    assert proc.stderr is not None
    seen = ""
    deadline = time.monotonic() + 600
    while sum(seen.count(s) for s in STARTED) < 2 and "running in" not in seen:  # both under way
        line = proc.stderr.readline()
        assert line and time.monotonic() < deadline, f"the runs never started: {seen}"
        seen += line
    time.sleep(3)
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    assert proc.wait(120) == 130, seen + rest
    assert "nothing stored for it" in rest and "run the same command to resume" in rest, rest
    assert records(out) == []
    assert vm_folders() <= before, "a guest folder was left behind"
    resumed = harness("run", str(experiment), "--jobs", "2", "--output", str(out), "--no-report")
    check_store(out, resumed)


def test_cluster_of_two_local_dask_workers(experiment, tmp_path):
    out = tmp_path / "out"
    env_before = os.environ.get("HARNESS_CLUSTER")
    assert env_before is None or env_before.startswith("local:")
    proc = harness("run", str(experiment), "--cluster", "local:2", "--output", str(out),
                   "--no-report")
    got = check_store(out, proc)
    assert len({r["run_id"] for r in got}) == 2


def free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_cluster_of_a_real_dask_scheduler_and_worker_processes(experiment, tmp_path):
    """``dask scheduler`` and ``dask worker`` as separate processes, as on a cluster:

        harness run --cluster tcp://127.0.0.1:PORT ──► dask scheduler ──► dask worker (2 procs)
    """
    dask = Path(sys.executable).parent / "dask"
    if not dask.exists():
        pytest.skip("the dask command is not installed beside this Python")
    port = free_port()
    address = f"tcp://127.0.0.1:{port}"
    logs = tmp_path / "dask.log"
    with open(logs, "w") as log:
        scheduler = subprocess.Popen([str(dask), "scheduler", "--host", "127.0.0.1", "--port",
                                      str(port), "--no-dashboard"], stdout=log, stderr=log)
        worker = subprocess.Popen([str(dask), "worker", address, "--nthreads", "1",
                                   "--nworkers", "2", "--no-dashboard"], stdout=log, stderr=log)
        try:
            from distributed import Client
            with Client(address, timeout=60) as client:  # wait for both workers to join
                client.wait_for_workers(2, timeout=120)
            out = tmp_path / "out"
            proc = harness("run", str(experiment), "--cluster", address, "--output", str(out),
                           "--no-report")
            got = check_store(out, proc)
            assert len({r["run_id"] for r in got}) == 2
        finally:
            for p in (worker, scheduler):
                p.terminate()
                try:
                    p.wait(30)
                except subprocess.TimeoutExpired:
                    p.kill()
