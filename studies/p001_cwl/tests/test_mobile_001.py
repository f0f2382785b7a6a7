"""Paper 001's E9 on the emulator: 50 nodes moving by random waypoint (1-5 m/s, no pause) over
1500 x 300 m, 802.11s HWMP as the reactive routing, TCP Reno with the timeout capped at 2 s,
the adaptive window limit against none (papers.md E9, claims 001.gain/.queue/.drops).

Quick: studies/p001_cwl/experiments/001_mobile_quick.yaml, 5 flows of 20 s: the mechanism
(nodes move, routes change and are logged, each adaptive flow holds its limit or is reported
unprimed, the medium's queue counters are read over the flows). Slow: 001_mobile.yaml (5, 15
and 25 flows, 100 s), judged on the committed records.
"""
from __future__ import annotations

import pytest

from harness.testing.study_runs import run_file
from studies.p001_cwl import paper as paper001

pytestmark = [pytest.mark.emulation, pytest.mark.paper]


@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return run_file("001_mobile_quick", tmp_path_factory.mktemp("p001m"))


def test_mobile_runs_move_reroute_and_hold_their_limits(quick):
    assert len(quick.ok) == 2, [r.get("error") for r in quick.failed]
    print("\n" + "\n".join(paper001.mobile_lines(quick.ok)))
    for rec in quick.ok:
        moved = rec["medium"]["mobility"]["nodes"]
        assert len(moved) == 50, moved
        log = rec["network"]["route_log"]
        during = [e for e in log if e["t"] > 0]
        print(f"adaptive={rec['params']['policy'].get('adaptive_window')}: {len(log)} route "
              f"changes, {len(during)} after the flows started; "
              f"converged in {rec['network']['routing']['converged_s']} s")
        assert during, "no route changed while 50 nodes moved for 20 s"
        metrics = paper001.mobile_metrics(rec)
        assert metrics is not None and len(rec["flows"]) == 5, metrics
        assert metrics["queue"] >= 0 and metrics["drops"] >= 0, metrics
        if rec["params"]["policy"].get("adaptive_window"):
            checks = [f["checks"]["adaptive_window"] for f in rec["flows"]]
            assert len(checks) == 5 and all(c["held"] in (True, None) for c in checks), checks
            # a flow that never connected has nothing to hold (held None, and 0 goodput), nor
            # one whose priming connection found no path (primed False: it ran unbounded)
            assert all(c["held"] or f["throughput_bps"] == 0 or c.get("primed") is False
                       for c, f in zip(checks, rec["flows"])), checks
    assert any(paper001.mobile_metrics(r)["kbps"] > 0 for r in quick.ok), \
        "no flow of either run moved data"


# -- slow: the grid, judged on the committed records -------------------------------------------
@pytest.fixture(scope="module")
def grid():
    return run_file("001_mobile")


def grid_means(grid):
    means = paper001.mobile_means(grid.ok)
    print("\n" + "\n".join(paper001.mobile_lines(grid.ok)))
    assert len(means) >= 3, f"need both policies at 3 flow counts, got {sorted(means)}"
    return means


@pytest.mark.slow
def test_grid_adaptive_limit_gains_goodput(grid):
    """001.gain: adaptive above unbounded, by 8-16 % in the paper; here: above, on average
    over the flow counts."""
    means = grid_means(grid)
    gains = {n: m[True]["kbps"] / m[False]["kbps"] - 1 for n, m in means.items()
             if m[False]["kbps"] > 0}
    print({n: f"{100 * g:+.1f} %" for n, g in gains.items()})
    assert len(gains) == len(means) and sum(gains.values()) / len(gains) > 0, gains


@pytest.mark.slow
@pytest.mark.xfail(strict=True, reason=(
    "measured 2026-12-07 (UML, 6.1): 25 flows 5.92 frames per radio adaptive against 9.00 "
    "unbounded, 1.5x (15 flows: 6.34 / 7.10; 5 flows: 0.50 / 1.13), not the paper's 10x. "
    "Hypotheses: the medium's queue holds every frame a radio sends, and 802.11s peering "
    "retries at the edge of range load it in both runs (DSR has no peering); adaptive flows "
    "whose pair found no path before the flows ran without their limit (1-4 per run); "
    "Linux queues above the MAC (qdisc, mac80211) hold the unbounded windows' excess "
    "before the 25-frame MAC queue does. studies/p001_cwl/findings.md"))
def test_grid_adaptive_limit_shortens_queues(grid):
    """001.queue: at the most flows the unbounded queues are about 10x longer (0.24 against
    2.47 frames); here: at least 5x."""
    top = grid_means(grid)[max(grid_means(grid))]
    assert top[False]["queue"] >= 5 * top[True]["queue"], top


@pytest.mark.slow
def test_grid_adaptive_limit_drops_fewer_frames(grid):
    """001.drops: fewer queue-overflow drops with the adaptive limit at the most flows."""
    top = grid_means(grid)[max(grid_means(grid))]
    assert top[True]["drops"] < top[False]["drops"], top
