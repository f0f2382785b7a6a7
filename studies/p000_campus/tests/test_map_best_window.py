"""Paper 000's resampling of the best window (claims 6 and 7) on hand-made grids: the
resamples decide a verdict where the windows differ more than their runs do, and leave it to
chance where they do not (pure logic, no records)."""
from __future__ import annotations

from typing import Dict, List

from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_best_window as W

PATHS = {1: "22-13", 2: "5-3-23", 3: "1-16-13-22", 4: "1-16-13-29-30"}


def grid(best: Dict[int, int], runs: List[float], gap: float) -> M.Grid:
    """RTS/CTS off, one path a hop count: every window carries 1000 kbit/s plus ``runs``'
    offsets, the hop count's ``best`` window ``gap`` more."""
    kbps: Dict[M.Key, List[float]] = {}
    for h, path in PATHS.items():
        for rate in M.RATES:
            for w in M.WINDOWS:
                top = gap if w == best[h] else 0.0
                kbps[(path, rate, False, w)] = [1000.0 + top + r for r in runs]
    return M.Grid(kbps, {})


def test_windows_farther_apart_than_their_runs_decide_the_verdict():
    # the paper's best windows (2, 3, 5, 6) by 200 kbit/s, runs within 30 of each other
    d = W.draws(grid({1: 2, 2: 3, 3: 5, 4: 6}, [-15.0, 0.0, 15.0], 200.0), W.CLAIM7, 200)
    assert d.observed[(3, 5.5)] == 5 and d.same[(3, 5.5)] == 1.0
    assert d.holds_observed is True and d.holds_share == 1.0
    assert W.firmness(d) == "holds on the runs, in 100% of resamples: decided by the runs"


def test_windows_closer_than_their_runs_leave_the_verdict_to_chance():
    # every hop count's best window 1, by 10 kbit/s, but one window's runs 300 kbit/s apart:
    # a resample that draws the low run twice moves the argmax
    d = W.draws(grid({1: 1, 2: 1, 3: 1, 4: 1}, [-150.0, 0.0, 150.0], 10.0), W.CLAIM7, 400)
    assert d.holds_observed is False
    assert all(share < 0.9 for share in d.same.values())
    assert 1 - W.FIRM < d.holds_share < W.FIRM          # neither verdict near-certain
    assert W.firmness(d).endswith("the runs' chance")


def test_an_incomplete_grid_has_no_verdict():
    g = grid({1: 2, 2: 3, 3: 5, 4: 6}, [0.0, 1.0], 200.0)
    g.kbps = {k: v for k, v in g.kbps.items() if k[0] != PATHS[4]}
    d = W.draws(g, W.CLAIM7, 10)
    assert d.holds_observed is None and W.firmness(d) == "incomplete grid"
    lines = W.section_lines([(1, g)], 10)
    assert lines[0].startswith("## How firmly three runs decide the best window")
    assert "- seed 1: claim 7 incomplete grid" in lines
    assert W.section_lines([]) == []
