"""Trend tests on the 2 Mbit/s chain (802.11b, ns-2 geometry, mediumd), through the same
runner and executor as ``harness run``: the numbers asserted on are the stored records.

Regime of every test here: 802.11b at a fixed 2 Mbit/s, RTS/CTS off, 200 m spacing with 250 m
transmission and 550 m interference range (``geometry: ns2``), one bulk TCP flow (reno, SACK)
from the first to the last station, Linux's delayed ACK unless a test turns it off.
Quick subset: one repetition per point (two for the window sweep, whose assertion is a 10%
band: single runs under a loaded TCG host vary by several percent), 8 s flows (each run also spends ~20 s building and
tearing down under TCG). The ``slow`` tests repeat with more runs and longer flows.
"""
from __future__ import annotations

from typing import Any, Dict, List

import pytest

from harness.analysis import trends
from harness.experiment.results import series, throughput_mbps

pytestmark = pytest.mark.emulation

REGIME = {"phy": "802.11b", "rate": "2 Mbit/s", "rts": "off", "geometry": "ns2",
          "flow": "1 TCP reno, first -> last"}

BASE = """\
name: {name}
topology: {{builder: chain, hops: 1, geometry: ns2, phy: b, rate: 2, rts: false}}
policy: {{congestion: reno, sack: true}}
flows:
  - {{src: first, dst: last, duration: {duration}}}
repetitions: {repetitions}
seed: 7
"""
QUICK = {"duration": 8, "repetitions": 1}
SLOW = {"duration": 20, "repetitions": 3}


def experiment(name: str, sweep: Dict[str, List[Any]], *, policy: Dict[str, Any] = None,
               duration: float = 8, repetitions: int = 1) -> Dict[str, Any]:
    import yaml
    data = yaml.safe_load(BASE.format(name=name, duration=duration, repetitions=repetitions))
    data["policy"].update(policy or {})
    if sweep:
        data["sweep"] = sweep
    return data


def show(s: Any, what: str, x_name: str) -> None:
    """Print the numbers a trend is judged on, also when it passes."""
    print(f"\n{what} by {x_name} ({', '.join(f'{k}={v}' for k, v in REGIME.items())})\n"
          + trends.table(trends.points(s), what, x_name))


def ss_values(rec: Dict[str, Any], key: str) -> List[int]:
    return [s[key] for f in rec["flows"] for s in f.get("ss", []) if s.get(key) is not None]


# -- shared quick runs (module scope: each sweep runs once for the tests that read it) ------
@pytest.fixture(scope="module")
def hops_runs(tmp_path_factory):
    from harness.testing.fixtures import run_experiment_text
    return run_experiment_text(experiment("hops", {"topology.hops": [1, 2, 3]}, **QUICK),
                               tmp_path_factory.mktemp("hops"))


@pytest.fixture(scope="module")
def window_runs(tmp_path_factory):
    """Window sweep in the papers' regime: the receiver acknowledges every segment (docs/kernel.md,
    'Delayed ACK'; with Linux's delayed ACK a window of 2 costs more, see the slow test below)."""
    from harness.testing.fixtures import run_experiment_text
    return run_experiment_text(
        experiment("window", {"policy.cwnd_clamp": [2, 3, 4, None]},
                   policy={"delayed_ack": False}, **{**QUICK, "repetitions": 2}),
        tmp_path_factory.mktemp("window"))


# -- quick subset -----------------------------------------------------------------------
def test_throughput_falls_from_one_to_two_to_three_hops(hops_runs):
    s = series(hops_runs.records, "topology.hops", "throughput")
    show(s, "throughput (Mbit/s)", "hops")
    assert list(s) == [1, 2, 3], s
    trends.assert_decreasing(s, strict=True, tolerance=0.10, what="throughput (Mbit/s)",
                             x_name="hops", regime=REGIME)


def test_one_hop_window_limits_of_two_and_more_barely_matter(window_runs):
    s = series(window_runs.records, "policy.cwnd_clamp", "throughput")
    show(s, "throughput (Mbit/s)", "cwnd clamp")
    assert len(s) == 4, s
    trends.assert_relative_spread_below(s, 10, what="throughput (Mbit/s)", x_name="cwnd clamp",
                                        regime={**REGIME, "hops": 1, "ACKs": "quickack"})


def test_cwnd_clamp_of_two_is_seen_in_the_samples(window_runs):
    recs = [r for r in window_runs.ok if r["params"]["policy"].get("cwnd_clamp") == 2]
    assert recs, [r.get("point") for r in window_runs.records]
    rec = recs[0]
    cwnd, unacked = ss_values(rec, "cwnd"), ss_values(rec, "unacked")
    print(f"\ncwnd clamp 2: {len(cwnd)} ss samples, cwnd {sorted(set(cwnd))}, "
          f"unacked {sorted(set(unacked))}, {throughput_mbps(rec):.3f} Mbit/s")
    assert cwnd, "no ss samples of the data socket"
    assert max(cwnd) <= 2, cwnd
    assert max(unacked) <= 2, unacked
    assert rec["flows"][0]["checks"]["cwnd_clamp"]["held"] is True
    assert "cwnd 2" in rec["policies"]["cwnd_clamp"]["tcp_metrics"]["sta1->sta2"]
    # and it really was a clamp: the unclamped run's window grew past it
    free = [r for r in window_runs.ok if r["params"]["policy"].get("cwnd_clamp") is None]
    assert free and max(ss_values(free[0], "cwnd")) > 2, ss_values(free[0], "cwnd") if free else free


def test_delayed_ack_off_lowers_one_hop_throughput(tmp_path):
    from harness.testing.fixtures import run_experiment_text
    rs = run_experiment_text(experiment("ack", {"policy.delayed_ack": [True, False]}, **QUICK),
                             tmp_path / "ack")
    s = series(rs.records, "policy.delayed_ack", "throughput")
    groups = {"delayed ACK (Linux)": s[True], "quickack (every segment)": s[False]}
    show(groups, "throughput (Mbit/s)", "ACK policy")
    trends.assert_ordering(groups, order=list(groups), strict=True, what="throughput (Mbit/s)",
                           regime={**REGIME, "hops": 1})


# -- slow: more repetitions, longer flows -------------------------------------------------
@pytest.mark.slow
def test_with_delayed_ack_a_window_of_two_costs_throughput(tmp_path):
    """With a receiver that delays ACKs the best window shifts upward (docs/kernel.md); at one
    hop a sender clamp of 2 then falls clearly below the unclamped flow."""
    from harness.testing.fixtures import run_experiment_text
    rs = run_experiment_text(experiment("window_delack", {"policy.cwnd_clamp": [2, None]},
                                        **SLOW), tmp_path / "w")
    s = series(rs.records, "policy.cwnd_clamp", "throughput")
    groups = {"unclamped": s[None], "cwnd clamp 2": s[2]}
    show(groups, "throughput (Mbit/s)", "window (delayed ACK)")
    trends.assert_ordering(groups, order=list(groups), strict=True, tolerance=0.05,
                           what="throughput (Mbit/s)", regime={**REGIME, "hops": 1})


@pytest.mark.slow
def test_hops_trend_with_repetitions(tmp_path):
    from harness.testing.fixtures import run_experiment_text
    rs = run_experiment_text(experiment("hops_slow", {"topology.hops": [1, 2, 3, 4]}, **SLOW),
                             tmp_path / "hops")
    s = series(rs.records, "topology.hops", "throughput")
    show(s, "throughput (Mbit/s)", "hops")
    trends.assert_decreasing(s, strict=True, tolerance=0.05, what="throughput (Mbit/s)",
                             x_name="hops", regime=REGIME)


@pytest.mark.slow
def test_receiver_window_of_one_does_not_wait_for_delayed_acks(tmp_path):
    """The two window mechanisms differ (docs/policies.md): at 1 segment, a sender clamp waits
    on the receiver's delayed-ACK timer every segment; a receiver window does not."""
    from harness.testing.fixtures import run_experiment_text
    cw = run_experiment_text(experiment("cw1", {}, policy={"cwnd_clamp": 1}, **SLOW),
                             tmp_path / "cw1")
    rw = run_experiment_text(experiment("rw1", {}, policy={"rwnd_clamp": 1}, **SLOW),
                             tmp_path / "rw1")
    groups = {"rwnd clamp 1": [throughput_mbps(r) for r in rw.ok],
              "cwnd clamp 1": [throughput_mbps(r) for r in cw.ok]}
    show(groups, "throughput (Mbit/s)", "window mechanism")
    trends.assert_ordering(groups, order=list(groups), strict=True, tolerance=0.2,
                           what="throughput (Mbit/s)", regime={**REGIME, "hops": 1})


# -- the executor's contract ----------------------------------------------------------------
def test_ctrl_c_during_a_flow_tears_everything_down_and_propagates():
    """KeyboardInterrupt while iperf3 runs: nothing of the run survives, the interrupt
    reaches the caller (the runner then stores nothing for the run)."""
    import _thread
    import subprocess
    import threading
    import time

    from harness.experiment import schema
    from harness.experiment.execute import execute_run
    from harness.experiment.sweep import expand
    from harness.kernel.cleanup import harness_objects_left

    assert not harness_objects_left(), "objects of an earlier run are still there"
    params = expand(schema.loads(BASE.format(name="intr", duration=60, repetitions=1)))[0].params
    params["policy"]["cwnd_clamp"] = 3   # through the medium: plain hwsim is unshaped
    seen = threading.Event()

    def interrupt_when_iperf_runs() -> None:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            out = subprocess.run(["pgrep", "-f", "iperf3 -c .* -t 60"], capture_output=True)
            if out.returncode == 0:
                seen.set()
                time.sleep(1.0)
                _thread.interrupt_main()
                return
            time.sleep(0.2)

    watcher = threading.Thread(target=interrupt_when_iperf_runs, daemon=True)
    watcher.start()
    t0 = time.monotonic()
    with pytest.raises(KeyboardInterrupt):
        execute_run(params, 1, run_id="intr")
    print(f"\ninterrupted and torn down after {time.monotonic() - t0:.1f} s")
    assert seen.is_set(), "the measured iperf3 flow never started"
    assert not harness_objects_left(), harness_objects_left()
