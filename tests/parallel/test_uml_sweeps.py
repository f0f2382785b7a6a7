"""The UML engine as a user drives it: ``harness run`` with one guest per run.

    pair.yaml (2 runs) ──► harness run --jobs 1|2 ──► UML guest (seed of run A) ── A ──┐
                                                  └─► UML guest (seed of run B) ── B ──┴─► store

- one seed, one result: the records of a sweep are byte-identical (the ``timing`` field aside,
  which holds the host's wall seconds) whether it ran at --jobs 1 or 2 or from a copy of the
  checkout elsewhere (under /tmp, a path of another length), and another experiment seed gives
  other records;
- a sweep killed (SIGKILL of ``harness``) at random moments leaves no guest process, no run
  folder, no namespace once ``harness clean`` ran, and the sweep then resumes to the end.
"""
from __future__ import annotations

import importlib
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from harness.experiment.revision import ENV as REVISION_ENV
from harness.experiment.revision import revision_of
from harness.paths import code_root
from harness.vm.engine import engine

pytestmark = [pytest.mark.parallel,
              pytest.mark.skipif(engine() != "uml", reason="the engine is not uml")]

EXPERIMENT = """\
name: uml_pair
topology: {builder: chain, phy: b, rate: 11, spacing: 200}
flows: [{src: first, dst: last, duration: 3}]
sweep:
  topology.hops: [1, 2]
repetitions: 1
seed: SEED
output: results/uml_pair
"""


def harness(*args: str, timeout: float = 900, checkout: Optional[Path] = None
            ) -> subprocess.CompletedProcess:
    """``harness ARGS``; from CHECKOUT (a copy of this one) instead of this checkout."""
    env = None
    if checkout is not None:
        # the copy has no git: it is given this checkout's revision, read now (not a cached one)
        env = dict(os.environ, PYTHONPATH=str(checkout),
                   **{REVISION_ENV: revision_of(code_root()) or ""})
    return subprocess.run([sys.executable, "-m", "harness", *args], capture_output=True,
                          text=True, timeout=timeout, env=env, cwd=checkout)


def copy_of_checkout(where: Path) -> Path:
    """The checkout's tracked files, as they are on disk, copied to WHERE."""
    root = code_root()
    listed = subprocess.run(["git", "-C", str(root), "ls-files", "-z"], capture_output=True,
                            check=True).stdout.decode().split("\0")
    files = [f for f in listed if f and (root / f).is_file()]
    assert len(files) > 100
    for name in files:
        (where / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / name, where / name)
    return where


def experiment(tmp_path: Path, seed: int, hops: str = "[1, 2]") -> Path:
    path = tmp_path / f"pair-{seed}.yaml"
    path.write_text(EXPERIMENT.replace("SEED", str(seed)).replace("[1, 2]", hops))
    return path


def comparable(out: Path) -> Dict[str, str]:
    """Each stored record as JSON text without its ``timing`` (host wall seconds)."""
    files = sorted((out / "runs").glob("*.json"))
    got = {}
    for path in files:
        record = json.loads(path.read_text())
        record.pop("timing", None)
        got[path.name] = json.dumps(record, sort_keys=True)
    return got


def run_sweep(yaml: Path, out: Path, jobs: int, checkout: Optional[Path] = None
              ) -> Dict[str, str]:
    proc = harness("run", str(yaml), "--jobs", str(jobs), "--output", str(out), "--no-report",
                   checkout=checkout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "UML guest" in proc.stderr, proc.stderr[-2000:]
    got = comparable(out)
    assert len(got) == 2, proc.stderr[-2000:]
    for text in got.values():
        record = json.loads(text)
        assert record["status"] == "ok", record["error"]
        assert record["environment"]["engine"] == "uml"
        assert record["environment"]["clock"] == "virtual"
        assert record["flows"][0]["throughput_bps"] > 100e3
    return got


def test_one_seed_one_result_at_one_and_two_jobs_another_seed_another(tmp_path):
    first = run_sweep(experiment(tmp_path, 7), tmp_path / "a", jobs=1)
    second = run_sweep(experiment(tmp_path, 7), tmp_path / "b", jobs=2)
    assert first == second  # byte for byte, whatever ran beside each run
    # the guest sees the checkout at a fixed path: where it lies on the host (and the length
    # of that path) does not reach the results
    moved = copy_of_checkout(tmp_path / "a-copy-of-the-checkout-at-a-path-of-another-length")
    assert run_sweep(experiment(tmp_path, 7), tmp_path / "d", jobs=2, checkout=moved) == first
    other = run_sweep(experiment(tmp_path, 8), tmp_path / "c", jobs=2)
    assert len(other) == len(first) == 2
    # another seed, another run at every point: its flows and the medium's counters differ
    # (the received byte count alone can coincide: seeds 7 and 8 both got 1352 segments
    # through at 1 hop, seed 9 1334, while their throughputs, RTTs and counters differ)
    def by_point(runs: Dict[str, str]) -> Dict[str, Dict[str, object]]:
        records = [json.loads(t) for t in runs.values()]
        return {json.dumps(r["point"], sort_keys=True): r for r in records}
    mine, theirs = by_point(first), by_point(other)
    assert sorted(mine) == sorted(theirs) and len(mine) == 2
    for point in mine:
        a, b = mine[point], theirs[point]
        assert a["flows"][0]["intervals"] != b["flows"][0]["intervals"], point
        assert a["medium"]["counters"]["links"] != b["medium"]["counters"]["links"], point


def test_a_run_with_a_moving_node_is_identical_in_two_fresh_guests(tmp_path):
    """``harness run --check-determinism``: the file's first run twice, each in a fresh guest;
    the node's trajectory comes from the run's seed, its positions from mediumd's clock."""
    proc = harness("run", str(code_root() / "experiments" / "driving_away.yaml"),
                   "--check-determinism")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "identical: run" in proc.stdout and "status ok" in proc.stdout, proc.stdout


def test_a_routed_run_of_moving_nodes_is_identical_in_two_fresh_guests(tmp_path):
    """12 moving nodes routed by babeld (a daemon with its own timers and random jitter,
    fed by the guest's seeded randomness): its route log, flows and the medium's counters
    are the same in two fresh guests (experiments/manet_babel.yaml)."""
    proc = harness("run", str(code_root() / "experiments" / "manet_babel.yaml"),
                   "--check-determinism")
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    assert "identical: run" in proc.stdout and "status ok" in proc.stdout, proc.stdout


def leftovers() -> List[str]:
    from harness.cli.clean import PLUMBING
    for module in PLUMBING:
        importlib.import_module(module)
    from harness.kernel import cleanup
    return cleanup.harness_objects_left(None)


def test_sweep_killed_at_twenty_random_moments_leaves_nothing(tmp_path):
    yaml = experiment(tmp_path, 11, hops="[1, 2, 3, 4]")
    out = tmp_path / "out"
    rng = random.Random(1)
    kills = 0
    moments = [rng.uniform(0.5, 8.0) for _ in range(20)]
    assert len(moments) == 20
    for moment in moments:
        if len(comparable(out)) == 4:  # the sweep got to its end between two kills: again
            shutil.rmtree(out)
        proc = subprocess.Popen([sys.executable, "-m", "harness", "run", str(yaml), "--jobs",
                                 "2", "--output", str(out), "--no-report"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                start_new_session=True)
        time.sleep(moment)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)  # no handler runs: only PDEATHSIG and clean
            kills += 1
        proc.wait(60)
        deadline = time.monotonic() + 10  # the guests die with their parent (a watcher)
        while time.monotonic() < deadline and [x for x in leftovers() if "guest " in x]:
            time.sleep(0.2)
        assert not [x for x in leftovers() if "guest " in x], "a guest outlived its harness"
        clean = harness("clean")
        assert clean.returncode == 0, clean.stderr
        left = leftovers()
        assert left == [], f"after a kill at {moment:.1f} s: {left}"
    assert kills >= 10
    done = harness("run", str(yaml), "--jobs", "2", "--output", str(out), "--no-report")
    assert done.returncode == 0, done.stderr[-3000:]
    assert len(comparable(out)) == 4
    assert leftovers() == []


def test_a_guest_that_spins_is_stopped_by_the_watchdog(monkeypatch):
    """In virtual time a busy loop stops the guest's clock; the watchdog notices within its
    limit, kills the guest and names what was on the host CPU (the guest's processes show on
    the host as copies of the UML binary: their host pids, not their guest names)."""
    from harness.vm import dispatch
    from harness.vm.uml import GuestHung
    monkeypatch.setenv("HARNESS_UML_WATCHDOG", "8")
    before = set(leftovers())
    t0 = time.monotonic()
    with pytest.raises(GuestHung) as caught:
        dispatch.run_script("sleep 2; exec sh -c 'while :; do :; done'")
    assert time.monotonic() - t0 < 60
    message = str(caught.value)
    assert "clock stopped" in message and "spins" in message, message
    assert "(host pid" in message, message
    assert set(leftovers()) <= before


def test_a_run_asking_for_edited_mac80211_boots_the_kernel_built_with_it(tmp_path):
    """policy.mac80211 fail-avg-3.12: the guest of that run boots ``linux-fail-avg-3.12``; the
    policy checks the build in place (/sys/module/mac80211/parameters/harness_variant) and
    fails the run if the stock kernel was booted instead."""
    yaml = tmp_path / "variant.yaml"
    yaml.write_text(EXPERIMENT.replace("SEED", "5").replace(
        "flows:", "policy: {mac80211: fail-avg-3.12}\nflows:"))
    out = tmp_path / "out"
    proc = harness("run", str(yaml), "--output", str(out), "--no-report")
    assert proc.returncode == 0, proc.stderr[-3000:]
    got = [json.loads(t) for t in comparable(out).values()]
    assert len(got) == 2 and all(r["status"] == "ok" for r in got), got
