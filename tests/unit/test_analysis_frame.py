"""load_frame: a result set as one DataFrame (one row per run and flow), its values equal to the
records', the swept keys as dotted columns, the medium's counters reduced to run-wide columns."""
from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import t

from harness.analysis import load_frame, stats
from harness.analysis.frame import RUN_COLUMNS, medium_columns
from harness.errors import HarnessError
from harness.experiment.results import flow_rtt_ms, load_results, series

DATA = Path(__file__).parent / "data" / "chain_small"


def records():
    return [json.loads(p.read_text()) for p in sorted((DATA / "runs").glob("*.json"))]


def by_id():
    return {r["run_id"]: r for r in records()}


def test_one_row_per_ok_run_and_flow_with_the_columns_in_order():
    df = load_frame(str(DATA))
    ok = [r for r in records() if r["status"] == "ok"]
    assert len(df) == sum(len(r["flows"]) for r in ok) == 17
    assert sorted(set(df["run_id"])) == sorted(r["run_id"] for r in ok)
    assert set(df["status"]) == {"ok"}
    cols = list(df.columns)
    assert cols[:len(RUN_COLUMNS)] == list(RUN_COLUMNS)
    assert cols[len(RUN_COLUMNS):len(RUN_COLUMNS) + 2] == ["topology.hops", "policy.cwnd_clamp"]
    for col in ("topology.rate", "topology.rts", "policy.congestion", "medium.enabled",
                "flows[0].src", "flows[0].duration", "flow_index", "src", "dst", "throughput_bps",
                "throughput_mbps", "retransmits", "rtt_ms", "rtt_min_ms", "rtt_max_ms",
                "cwnd_mean", "cwnd_min", "cwnd_max", "medium_frames", "medium_retry_drops",
                "medium_lag_ms_p50", "medium_lag_ms_p99"):
        assert col in cols, col
    assert cols.index("flow_index") > cols.index("flows[0].count")
    assert cols.index("medium_frames") > cols.index("cwnd_max")
    assert df.attrs == {"name": "chain_small", "sweep_keys": ["topology.hops", "policy.cwnd_clamp"]}


def test_values_equal_the_records():
    recs = by_id()
    df = load_frame(DATA)
    rows = df.to_dict("records")
    assert rows, "no row to compare"
    for row in rows:
        rec = recs[row["run_id"]]
        flow = rec["flows"][row["flow_index"]]
        assert row["repetition"] == rec["repetition"] and row["seed"] == rec["seed"]
        assert row["seconds"] == rec["timing"]["seconds"]
        assert row["topology.hops"] == rec["params"]["topology"]["hops"]
        clamp = rec["params"]["policy"]["cwnd_clamp"]
        assert (math.isnan(row["policy.cwnd_clamp"]) if clamp is None
                else row["policy.cwnd_clamp"] == clamp)
        assert row["flows[0].dst"] == rec["params"]["flows"][0]["dst"] == "last"
        assert (row["src"], row["dst"]) == (flow["src"], flow["dst"])
        assert row["throughput_bps"] == flow["throughput_bps"]
        assert row["throughput_mbps"] == pytest.approx(flow["throughput_bps"] / 1e6)
        assert row["retransmits"] == flow["retransmits"]
        assert row["rtt_ms"] == pytest.approx(flow_rtt_ms(flow))
        rtts = [s["rtt_ms"] for s in flow["ss"]]
        cwnds = [s["cwnd"] for s in flow["ss"]]
        assert (row["rtt_min_ms"], row["rtt_max_ms"]) == (min(rtts), max(rtts))
        assert row["cwnd_mean"] == pytest.approx(sum(cwnds) / len(cwnds))
        assert (row["cwnd_min"], row["cwnd_max"]) == (min(cwnds), max(cwnds))
        assert row["medium_frames"] == rec["medium"]["frames"]
        assert row["medium_retry_drops"] == rec["medium"]["retry_drops"]
        assert row["medium_lag_ms_p99"] == rec["medium"]["lag_ms"]["p99"]


def test_grouped_means_match_the_harness_own_series_and_statistics():
    df = load_frame(DATA)
    no_clamp = df[df["policy.cwnd_clamp"].isna()]
    means = no_clamp.groupby("topology.hops")["throughput_mbps"].mean()
    expected = series(load_results(DATA).records, "topology.hops", "throughput",
                      where={"policy.cwnd_clamp": None})
    assert list(means.index) == list(expected) == [1, 2, 3]
    for hops, values in expected.items():
        assert means[hops] == pytest.approx(stats.mean(values))
        sem = no_clamp[no_clamp["topology.hops"] == hops]["throughput_mbps"].sem()
        assert t.ppf(0.975, len(values) - 1) * sem == pytest.approx(stats.ci_half_width(values))


def test_status_selects_runs_and_a_failed_run_is_one_row_without_flow_values():
    everything = load_frame(DATA, status=None)
    assert len(everything) == 18 and len(load_frame(DATA, status="all")) == 18
    failed = load_frame(DATA, status="failed")
    assert len(failed) == 1
    row = failed.iloc[0]
    assert row["status"] == "failed" and "unable to connect" in row["error"]
    assert row["topology.hops"] == 3 and row["policy.cwnd_clamp"] == 2
    assert pd.isna(row["flow_index"]) and pd.isna(row["throughput_mbps"])
    with pytest.raises(HarnessError, match="status='done'.*'ok', 'failed', 'all'"):
        load_frame(DATA, status="done")


def test_accepts_a_result_set_or_records_and_rejects_a_non_results_directory(tmp_path):
    rs = load_results(DATA)
    a = load_frame(rs)
    b = load_frame(rs.records)
    pd.testing.assert_frame_equal(a, b)
    assert b.attrs["sweep_keys"] == ["topology.hops", "policy.cwnd_clamp"]
    with pytest.raises(HarnessError, match="not a results directory"):
        load_frame(tmp_path)
    with pytest.raises(HarnessError, match="not one record"):
        load_frame(rs.records[0])


def test_a_packed_result_set_gives_the_same_frame(tmp_path):
    from harness.experiment import archive
    archive.pack(tmp_path / "records", [DATA], reports=tmp_path / "reports")
    pd.testing.assert_frame_equal(load_frame(tmp_path / "records" / DATA.name, status="all"),
                                  load_frame(DATA, status="all"))


def test_mapping_sweep_values_several_flows_and_colliding_flow_fields():
    base = records()[0]
    rec = dict(base, run_id="r1", point={"policy": {"congestion": "reno", "cwnd_clamp": 3}},
               params=dict(base["params"], policy={"congestion": "reno", "cwnd_clamp": 3}),
               flows=[dict(base["flows"][0], src="sta1"),
                      dict(base["flows"][0], src="sta2", status="partial", checks={"clamp": {"held": True}})])
    df = load_frame([rec])
    assert len(df) == 2 and list(df["flow_index"]) == [0, 1] and list(df["src"]) == ["sta1", "sta2"]
    assert set(df["policy"]) == {"congestion=reno,cwnd_clamp=3"}
    assert list(df["policy.cwnd_clamp"]) == [3, 3]
    assert df["flow.status"].iloc[1] == "partial" and set(df["status"]) == {"ok"}
    assert pd.isna(df["checks.clamp.held"].iloc[0]) and bool(df["checks.clamp.held"].iloc[1])
    assert df.groupby("policy")["throughput_mbps"].sum().iloc[0] == pytest.approx(0.9)


def test_medium_summary_and_counters_become_run_wide_totals():
    medium = {
        "enabled": True,
        "settings": {"queue": 50},
        "summary": {
            "lag_us": {"count": 10, "p50": 600.0, "p99": 4700.0},
            "radios": {"sta1": {"busy_fraction": 0.5, "queue_drops": 0, "tx_frames": 100, "acked": 99, "retry_drops": 1},
                       "sta2": {"busy_fraction": 0.7, "queue_drops": 52, "tx_frames": 200, "acked": 200, "retry_drops": 0}},
            "links": {"sta1>sta2": {"attempts": 120, "successes": 99, "collisions": 20, "retry_drops": 1,
                                    "airtime_us": 1000, "delivered": 99},
                      "sta2>sta1": {"attempts": 210, "successes": 200, "collisions": 10, "retry_drops": 0,
                                    "airtime_us": 3000, "delivered": 200}},
        },
        "counters": {"uptime_s": 36.9, "events": 377, "frames": {"in": 300, "kernel_errors": 2},
                     "status_lag_us": {"p99": 5000.0}},
    }
    cols = medium_columns(medium)
    assert cols["medium_enabled"] is True and "medium_settings_queue" not in cols
    assert (cols["medium_lag_us_p50"], cols["medium_lag_us_p99"]) == (600.0, 4700.0)
    assert (cols["medium_queue_drops"], cols["medium_tx_frames"], cols["medium_acked"],
            cols["medium_retry_drops"]) == (52, 300, 299, 1)
    assert cols["medium_busy_fraction_max"] == 0.7
    assert cols["medium_busy_fraction_mean"] == pytest.approx(0.6)
    assert (cols["medium_link_attempts"], cols["medium_link_collisions"],
            cols["medium_link_airtime_us"], cols["medium_link_delivered"]) == (330, 30, 4000, 299)
    assert (cols["medium_frames_in"], cols["medium_frames_kernel_errors"]) == (300, 2)
    assert cols["medium_status_lag_us_p99"] == 5000.0
    assert (cols["medium_uptime_s"], cols["medium_events"]) == (36.9, 377)
    assert medium_columns({"enabled": False}) == {"medium_enabled": False}
    assert medium_columns(None) == {}
