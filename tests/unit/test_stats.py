"""Statistics: known values of the t distribution, summaries, grouping records by parameter."""
from __future__ import annotations

import math

import pytest

from harness.analysis import stats

# Two-sided 95% Student t critical values (any statistics table).
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 9: 2.262, 10: 2.228, 19: 2.093,
        29: 2.045, 60: 2.000, 120: 1.980}


@pytest.mark.parametrize("df, expected", sorted(T975.items()))
def test_t_quantile_matches_the_table(df, expected):
    assert stats.t_quantile(0.975, df) == pytest.approx(expected, abs=1e-3)


def test_t_quantile_other_levels_and_symmetry():
    assert stats.t_quantile(0.995, 3) == pytest.approx(5.841, abs=1e-3)
    assert stats.t_quantile(0.95, 7) == pytest.approx(1.895, abs=1e-3)
    assert stats.t_quantile(0.025, 4) == pytest.approx(-2.776, abs=1e-3)
    assert stats.t_quantile(0.5, 4) == pytest.approx(0.0, abs=1e-9)
    assert stats.t_quantile(0.975, 1e6) == pytest.approx(1.960, abs=1e-3)
    assert stats.t_cdf(stats.t_quantile(0.9, 6), 6) == pytest.approx(0.9, abs=1e-9)
    with pytest.raises(ValueError):
        stats.t_quantile(1.0, 3)


@pytest.mark.parametrize("p", [0.6, 0.9, 0.95, 0.975, 0.995, 0.9995])
def test_t_quantile_equals_the_closed_forms_for_one_and_two_degrees(p):
    # df = 1 is Cauchy: tan(pi (p - 1/2)); df = 2: (2p - 1) / sqrt(2 p (1 - p)). Recent scipy
    # agrees to ~1e-15, older releases (1.9-1.12 checked) to ~1e-10.
    assert stats.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-8)
    assert stats.t_quantile(p, 2) == pytest.approx((2 * p - 1) / math.sqrt(2 * p * (1 - p)), rel=1e-8)


@pytest.mark.parametrize("df", [1, 2.5, 4, 30, 1000])
def test_t_cdf_inverts_t_quantile_and_rejects_bad_degrees(df):
    for p in (0.001, 0.3, 0.5, 0.8, 0.999):
        assert stats.t_cdf(stats.t_quantile(p, df), df) == pytest.approx(p, rel=1e-8)
    for bad in (0, -1, math.nan):
        with pytest.raises(ValueError):
            stats.t_quantile(0.9, bad)
        with pytest.raises(ValueError):
            stats.t_cdf(1.0, bad)


def test_without_scipy_the_interval_is_unknown_not_wrong(monkeypatch):
    # The VM guest has no scipy; its trend tables show "-" for the CI instead of failing.
    monkeypatch.setattr(stats, "have_scipy", lambda: False)
    assert math.isnan(stats.ci_half_width([10.0, 12.0, 11.0]))
    assert stats.summarize([10.0, 12.0, 11.0]).text() == "11"


def test_mean_median_stdev():
    xs = [2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0]
    assert stats.mean(xs) == 5.0
    assert stats.median(xs) == 4.5
    assert stats.median([3, 1, 2]) == 2
    assert stats.stdev(xs) == pytest.approx(2.138, abs=1e-3)  # sample (n - 1)
    assert stats.stdev([3.0]) == 0.0
    with pytest.raises(ValueError):
        stats.mean([])


def test_confidence_interval():
    xs = [10.0, 12.0, 11.0, 13.0, 9.0]
    half = stats.ci_half_width(xs)
    assert half == pytest.approx(2.776 * stats.stdev(xs) / math.sqrt(5), rel=1e-3)
    assert math.isnan(stats.ci_half_width([1.0]))
    s = stats.summarize(xs)
    assert (s.n, s.mean, s.median, s.min, s.max) == (5, 11.0, 11.0, 9.0, 13.0)
    assert s.ci_low == pytest.approx(11.0 - half) and s.ci_high == pytest.approx(11.0 + half)
    assert s.text("{:.2f}") == f"11.00 ± {half:.2f}"
    assert stats.summarize([4.0]).text() == "4"


def rec(hops, rts, tput, status="ok"):
    return {"status": status, "params": {"topology": {"hops": hops, "rts": rts},
                                         "flows": [{"congestion": "reno"}]},
            "flows": [{"throughput_bps": tput}]}


def test_group_and_summarize_records_by_parameter_paths():
    records = [rec(1, False, 2e6), rec(1, False, 2.2e6), rec(2, False, 1e6), rec(1, True, 1.8e6),
               rec(2, True, 0.9e6)]
    groups = stats.group_by(records, ["topology.hops"])
    assert list(groups) == [(1,), (2,)] and len(groups[(1,)]) == 3
    assert stats.param(records[0], "flows.congestion") == "reno"
    assert stats.param(records[0], "policy.cwnd_clamp") is None
    def tput(r):
        return r["flows"][0]["throughput_bps"] / 1e6

    summary = stats.summarize_by(records, ["topology.rts", "topology.hops"], tput)
    assert list(summary) == [(False, 1), (False, 2), (True, 1), (True, 2)]
    assert summary[(False, 1)].mean == pytest.approx(2.1) and summary[(False, 1)].n == 2
    assert stats.summarize_by(records, ["topology.hops"], lambda r: None) == {}
