"""Paper 001 (Chen, Xue, Nahrstedt) on the emulator, in the paper's regime: 802.11b 2 Mbit/s,
RTS/CTS, 250 m spacing = transmission range, 500 m interference (geometry ns2-001), queue 25,
one Reno flow first -> last, sender window limit, one ACK per segment (quickack).

Claims (papers.md 001.4, catalogue E7):
- 1-2 hops: window limits >= 2 lie within 10% of each other;
- h >= 3: the smallest limit reaching 95% of the best mean is at most ceil(2h/5) + 1, and the
  best limited window is at least as good as no limit;
- the adaptive policy (limit from the RTHC by the paper's table) reaches the best fixed
  limit's throughput within 10% (at 10-15 hops against fixed limits run in the same session,
  001_adaptive_vs_fixed.yaml).
Quick: studies/p001_cwl/experiments/001_cwl_sweep_quick.yaml + 001_adaptive_quick.yaml (1 and 4 hops),
001_adaptive_vs_fixed_quick.yaml (7 hops).
Slow: the full 001_cwl_sweep.yaml, 001_adaptive.yaml and 001_adaptive_vs_fixed.yaml (hours;
see docs/papers.md).
"""
from __future__ import annotations

from typing import List

import pytest

from harness.analysis import records as A
from harness.analysis import trends
from harness.testing.study_runs import run_file, show
from studies.p001_cwl import paper as paper001
from studies.p001_cwl.paper import per_hop

pytestmark = [pytest.mark.emulation, pytest.mark.paper]

REGIME = {"paper": "001", "phy": "802.11b 2 Mbit/s", "rts": "on", "geometry": "ns2-001",
          "acks": "one per segment (quickack)", "tcp": "reno, SACK off"}
WHAT = "delivered packets/s"


def check_flat(series: A.Series, hops: int) -> None:
    s = {x: v for x, v in series.items() if x is None or x >= 2}
    show(s, WHAT, "window limit", {**REGIME, "hops": hops})
    assert len(s) >= 2, f"need two limits >= 2 at {hops} hops, got {list(series)}"
    trends.assert_relative_spread_below(s, 10, what=WHAT, x_name="window limit",
                                        regime={**REGIME, "hops": hops})


def check_long_chain(series: A.Series, hops: int) -> None:
    show(series, WHAT, "window limit", {**REGIME, "hops": hops})
    bound = A.achievable_bound(hops)
    got = A.smallest_reaching(series, 0.95)
    assert got is not None and got <= bound, (
        f"{hops} hops: smallest window limit reaching 95% of the best mean is {got}, "
        f"expected <= ceil(2h/5)+1 = {bound}\nregime: {REGIME}\n"
        + trends.table(trends.points(series), WHAT, "window limit"))
    best = A.best_limited(series)
    assert None in series, f"{hops} hops: no unlimited run to compare with"
    groups = {f"best limit ({best})": series[best], "no limit": series[None]}
    trends.assert_ordering(groups, what=WHAT, x_name="window", regime={**REGIME, "hops": hops})


def check_adaptive(adaptive: List[float], series: A.Series, hops: int) -> None:
    best = A.best_limited(series)
    groups = {"adaptive (table)": adaptive, f"best fixed limit ({best})": series[best]}
    show(groups, WHAT, "policy", {**REGIME, "hops": hops})
    trends.assert_ordering({"adaptive / 0.9": [v / 0.9 for v in adaptive],
                            f"best fixed limit ({best})": series[best]},
                           what=f"{WHAT} (adaptive scaled by 1/0.9)", x_name="policy",
                           regime={**REGIME, "hops": hops})


# -- quick (CI) ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quick(tmp_path_factory):
    return run_file("001_cwl_sweep_quick", tmp_path_factory.mktemp("p001q"))


def test_one_hop_limits_of_two_and_more_within_ten_percent(quick):
    check_flat(per_hop(quick.records, False)[1], 1)


def test_four_hops_small_window_suffices_and_beats_no_limit(quick):
    check_long_chain(per_hop(quick.records, False)[4], 4)


def test_every_run_held_its_window_limit(quick):
    clamped = [rec for rec in quick.ok if rec["params"]["policy"].get("cwnd_clamp") is not None]
    assert clamped, "no run with a window limit finished: nothing to check"
    for rec in clamped:
        limit = rec["params"]["policy"]["cwnd_clamp"]
        check = rec["flows"][0]["checks"]["cwnd_clamp"]
        print(f"hops={rec['params']['topology']['hops']} limit={limit}: max cwnd "
              f"{check['max_cwnd']}, max unacked {check['max_unacked']}")
        assert check["held"] and check["max_cwnd"] <= limit


def test_adaptive_policy_picks_the_table_limit_and_holds_it(quick, tmp_path):
    """The mechanism, quickly: RTHC 8 on 4 hops maps to limit 1 and the clamp holds.

    The 10% claim needs repetitions (one 10 s run varies by ~12%), so it is judged on the
    full files in test_full_adaptive_within_ten_percent; here the numbers are only shown.
    """
    ad = run_file("001_adaptive_quick", tmp_path / "ad")
    rec = ad.ok[0]
    pair = rec["policies"]["adaptive_window"]["pairs"]["sta1->sta5"]
    print(f"\nadaptive window: {pair}")
    assert pair["rthc"] == 8 and pair["limit"] == 1
    check = rec["flows"][0]["checks"]["adaptive_window"]
    assert check["held"] and check["max_cwnd"] <= 1, check
    fixed = per_hop(quick.records, False)[4]
    print(f"adaptive: {[round(A.packets_per_s(r), 2) for r in ad.ok]} packets/s; "
          f"fixed limits at 4 hops: {fixed} (one run each: not a test of the 10% claim)")


def test_adaptive_and_fixed_limits_side_by_side_each_hold_their_limit(tmp_path):
    """One experiment runs the adaptive policy beside fixed limits (a sweep over whole policy
    mappings): every case runs, the adaptive one picks the table's limit, each holds its own."""
    rs = run_file("001_adaptive_vs_fixed_quick", tmp_path / "side")
    series = paper001.side_by_side(rs.ok)
    show(series[7], WHAT, "policy", {**REGIME, "hops": 7})
    assert sorted(series[7], key=str) == sorted([paper001.ADAPTIVE_KEY, 3, 5], key=str)
    assert len(rs.ok) == 3, f"{len(rs.ok)} finished runs: one per policy case expected"
    for rec in rs.ok:
        adaptive = rec["params"]["policy"].get("adaptive_window") is True
        name = "adaptive_window" if adaptive else "cwnd_clamp"
        limit = 3 if adaptive else rec["params"]["policy"]["cwnd_clamp"]
        if adaptive:
            assert rec["policies"]["adaptive_window"]["pairs"]["sta1->sta8"]["limit"] == 3
        check = rec["flows"][0]["checks"][name]
        assert check["held"] and check["max_cwnd"] <= limit, (name, check)


# -- slow (full sweep, hours) ---------------------------------------------------------------------
@pytest.fixture(scope="module")
def full():
    return run_file("001_cwl_sweep")


@pytest.mark.slow
@pytest.mark.parametrize("hops", [1, 2])
def test_full_short_chains_flat(full, hops):
    check_flat(per_hop(full.records, False)[hops], hops)


@pytest.mark.slow
@pytest.mark.parametrize("hops", list(range(3, 16)))
def test_full_long_chains(full, hops):
    check_long_chain(per_hop(full.records, False)[hops], hops)


@pytest.fixture(scope="module")
def side():
    return run_file("001_adaptive_vs_fixed")


@pytest.fixture(scope="module")
def adaptive():
    return run_file("001_adaptive")


@pytest.mark.slow
@pytest.mark.parametrize("hops", list(range(1, 16)))
def test_full_adaptive_within_ten_percent(full, side, adaptive, hops):
    """Judged against the fixed limits of the same session where 001_adaptive_vs_fixed.yaml has
    the hop count (10-15): comparing 001_adaptive.yaml with the CWL sweep, run on other days at
    other revisions, measured the same limit 10-15 % apart there (studies/p001_cwl/
    report.md). Elsewhere against the CWL sweep."""
    here = paper001.side_by_side(side.records).get(hops)
    if here is not None:
        fixed = {k: v for k, v in here.items() if k != paper001.ADAPTIVE_KEY}
        check_adaptive(here[paper001.ADAPTIVE_KEY], fixed, hops)
        return
    ad = A.collect(adaptive.records, "topology.hops", A.packets_per_s)
    check_adaptive(ad[hops], per_hop(full.records, False)[hops], hops)
