"""Trend assertions: they pass on the trend, and a failure tells the whole story."""
from __future__ import annotations

import pytest

from harness.analysis import trends

REGIME = {"rate": "2 Mbit/s", "rts": "off", "geometry": "ns2"}


def failure(fn, *args, **kwargs) -> str:
    with pytest.raises(AssertionError) as info:
        fn(*args, **kwargs)
    return str(info.value)


def test_series_forms_are_equivalent():
    as_map = trends.points({1: 3.0, 2: [2.0, 2.2], 3: 1.0})
    as_pairs = trends.points([(1, 3.0), (2, [2.0, 2.2]), (3, 1.0)])
    assert [(p.x, p.mean) for p in as_map] == [(p.x, p.mean) for p in as_pairs]
    assert [p.x for p in trends.points([5.0, 4.0])] == [0, 1]
    assert trends.points({1: [1.0, 3.0]})[0].mean == 2.0


def test_decreasing_passes_and_tolerates_noise():
    trends.assert_decreasing({1: 3.0, 2: 2.0, 3: 2.0})
    trends.assert_decreasing({1: 3.0, 2: 2.0, 3: 2.05}, tolerance=0.05)
    trends.assert_decreasing({1: 3.0, 2: 2.0, 3: 1.0}, strict=True, tolerance=0.2)


def test_decreasing_failure_prints_table_regime_and_rule():
    msg = failure(trends.assert_decreasing,
                  {1: [1.50, 1.52, 1.49], 2: [0.80, 0.82], 3: [0.90, 0.88]}, tolerance=0.05,
                  regime=REGIME, what="throughput (Mbit/s)", x_name="hops")
    assert "regime: rate=2 Mbit/s, rts=off, geometry=ns2" in msg
    assert "expected: throughput (Mbit/s) never to increase along hops by more than 5%" in msg
    assert "1.503" in msg and "0.81" in msg and "0.89" in msg  # the means it saw
    assert "+9.9% from hops=2" in msg
    assert "hops | mean throughput (Mbit/s) | ±95% CI | n" in msg


def test_strict_decreasing_rejects_a_flat_step():
    msg = failure(trends.assert_decreasing, [3.0, 3.0, 1.0], strict=True)
    assert "strictly" in msg and "+0.0% from x=0" in msg
    assert "regime: (not stated)" in msg


def test_increasing_mirror():
    trends.assert_increasing([1, 2, 3])
    assert "-50.0% from x=1" in failure(trends.assert_increasing, [1, 2, 1])


def test_argmax_in():
    series = {1: 1.0, 2: 1.4, 3: 1.3, 4: 1.1, None: 0.9}
    trends.assert_argmax_in(series, 2, 3)
    assert trends.argmax(series) == 2
    msg = failure(trends.assert_argmax_in, series, 3, 4, regime="RTS on", x_name="cwnd_clamp")
    assert "argmax is cwnd_clamp=2" in msg and "expected: argmax of value over cwnd_clamp in [3, 4]" in msg
    assert "regime: RTS on" in msg and "<- max" in msg
    assert "argmax is x=None" in failure(trends.assert_argmax_in, {1: 0.5, None: 2.0}, 1, 6)


def test_unimodal():
    trends.assert_unimodal([1, 2, 4, 3, 2], interior=True)
    trends.assert_unimodal([1, 2, 4, 3, 3.05], tolerance=0.05)
    trends.assert_unimodal([4, 3, 2])
    msg = failure(trends.assert_unimodal, [1, 3, 2, 3.5, 1])
    assert "not unimodal" in msg and "falls before the peak" in msg
    msg = failure(trends.assert_unimodal, [1, 2, 3], interior=True)
    assert "peak at an end" in msg


def test_relative_spread():
    trends.assert_relative_spread_below({1: 1.00, 2: 0.97, None: 0.99}, 5)
    assert trends.relative_spread([2.0, 1.0]) == 0.5
    assert trends.relative_spread([2.0, 1.0], "min") == 1.0
    msg = failure(trends.assert_relative_spread_below, {1: 1.0, 2: 0.8}, 10, regime=REGIME)
    assert "spread is 20.0%" in msg and "(max - min) / max of value < 10%" in msg
    assert "<- max" in msg and "<- min" in msg


def test_ordering():
    trends.assert_ordering({"vegas": 2.0, "reno": 1.9, "bic": [1.5, 1.7]})
    trends.assert_ordering({"a": 1.0, "b": 2.0}, order=["b", "a"])
    msg = failure(trends.assert_ordering, {"vegas": 1.0, "reno": 2.0, "bic": 0.5})
    assert "expected: vegas >= reno >= bic" in msg and "+100.0% from group=vegas" in msg
    with pytest.raises(ValueError):
        trends.assert_ordering({"a": 1.0}, order=["a", "z"])


def test_jain_fairness_and_assert_fair():
    assert trends.jain_fairness([1, 1, 1, 1]) == 1.0
    assert trends.jain_fairness([1, 0, 0, 0]) == 0.25
    assert trends.jain_fairness([1, 3]) == pytest.approx(16 / 20)
    trends.assert_fair({"down": [5.0, 5.2], "up": [4.9, 5.1]}, 0.99)
    msg = failure(trends.assert_fair, {"down": 1.0, "up": 9.0}, 0.9, regime="hybrid, cubic")
    assert "Jain index is 0.610" in msg and ">= 0.9" in msg and "90% share" in msg
