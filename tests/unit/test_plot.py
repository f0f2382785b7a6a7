"""Plots and reports from the stored result set ``data/chain_small`` (see make_chain_small.py)."""
from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

import pytest

from harness import cli
from harness.analysis import stats, trends
from harness.analysis.plot import lines, plot, resolve_axes, value_label
from harness.analysis.report import provenance_lines, write_report
from harness.errors import HarnessError
from harness.experiment.results import cwnd_segments, load_results, metric, rtt_ms, throughput_mbps

needs_mpl = pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None,
                               reason="matplotlib is not installed (e.g. in the VM guest)")
DATA = Path(__file__).resolve().parent / "data" / "chain_small"
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def results(tmp_path) -> Path:
    """A private copy, so outputs written into the directory never touch the stored data."""
    dest = tmp_path / "chain_small"
    shutil.copytree(DATA, dest)
    return dest


def test_result_set_reads_back():
    rs = load_results(DATA)
    assert rs.name == "chain_small" and len(rs.records) == 18
    assert len(rs.ok) == 17 and len(rs.failed) == 1
    assert rs.sweep_keys == ["topology.hops", "policy.cwnd_clamp"]


def test_metrics_of_a_record():
    rec = next(r for r in load_results(DATA).ok if r["point"] == {"topology.hops": 2,
                                                               "policy.cwnd_clamp": 2}
               and r["repetition"] == 0)
    assert throughput_mbps(rec) == pytest.approx(0.78)
    assert rtt_ms(rec) == pytest.approx(12.0)
    assert cwnd_segments(rec) == pytest.approx(2.0)
    assert metric("retransmits").fn(rec) == 4.0
    assert metric("fairness").fn(rec) == 1.0
    with pytest.raises(HarnessError, match="allowed: throughput, rtt"):
        metric("goodput")
    # Without ss samples the iperf3 intervals give RTT (us) and cwnd (bytes / mss).
    flow = dict(rec["flows"][0], ss=[], mss=1448)
    alt = dict(rec, flows=[flow])
    assert rtt_ms(alt) == pytest.approx(12.0) and cwnd_segments(alt) == pytest.approx(2.0)


def test_lines_group_by_the_other_swept_key_and_the_trend_holds():
    rs = load_results(DATA)
    x, groups = resolve_axes(rs, None, None)
    assert (x, groups) == ("topology.hops", ["policy.cwnd_clamp"])
    data = lines(rs, x, groups, "throughput")
    assert [l.label for l in data] == ["cwnd_clamp=2", "cwnd_clamp=unclamped"]
    clamp2 = {xv: s for xv, s in data[0].points}
    assert list(clamp2) == [1, 2, 3]
    assert clamp2[1].n == 3 and clamp2[3].n == 2  # one run failed
    assert clamp2[1].mean == pytest.approx(1.60)
    assert clamp2[1].ci == pytest.approx(stats.ci_half_width([1.58, 1.60, 1.62]))
    trends.assert_decreasing({xv: s.mean for xv, s in data[0].points}, strict=True)


@needs_mpl
@pytest.mark.parametrize("fmt", ["png", "svg"])
@pytest.mark.parametrize("metric_name", ["throughput", "rtt"])
def test_plot_writes_non_empty_figures(results, fmt, metric_name):
    path = plot(load_results(results), metric=metric_name, fmt=fmt)
    assert path == results / f"{metric_name}.{fmt}"
    data = path.read_bytes()
    assert len(data) > 5000
    if fmt == "png":
        assert data.startswith(PNG_MAGIC)
    else:
        assert b"<svg" in data[:2000]


@needs_mpl
def test_categorical_x_axis_with_null_values(results, tmp_path):
    out = plot(load_results(results), x="policy.cwnd_clamp", group="topology.hops",
               output=tmp_path / "by_clamp.svg", fmt="svg")
    assert out.stat().st_size > 5000
    assert value_label("policy.cwnd_clamp", None) == "unclamped"
    assert value_label("policy.mac.rts", True) == "on"
    assert value_label("topology.rate", 5.5) == "5.5"


def test_bad_axis_names_are_clear(results):
    rs = load_results(results)
    with pytest.raises(HarnessError, match="--x topology.hopz: no run has this parameter; "
                                           "swept here: topology.hops, policy.cwnd_clamp"):
        plot(rs, x="topology.hopz")
    with pytest.raises(HarnessError, match="--format 'pdf': allowed: png, svg"):
        plot(rs, fmt="pdf")
    with pytest.raises(HarnessError, match="not a results directory"):
        load_results(results / "runs")


@needs_mpl
def test_report_has_tables_figures_environment_and_failures(results):
    path = write_report(results)
    assert path == results / "report.md"
    text = path.read_text()
    assert text.startswith("# chain_small")
    assert "18 run records (17 ok, 1 failed) of 18 planned" in text
    assert "| hops | cwnd_clamp | n | mean ± 95% CI | median | min – max |" in text
    half = stats.ci_half_width([1.58, 1.60, 1.62])
    assert f"| 1 | 2 | 3 | 1.6 ± {half:.3g} | 1.6 | 1.58 – 1.62 |" in text
    assert "| 3 | 2 | 2 | " in text                      # the failed run is not averaged in
    assert "| 3 | unclamped | 3 | 0.45 ± " in text
    assert "## RTT (ms)" in text and "## Throughput (Mbit/s)" in text and "| 1 | unclamped | 3 | 11 ± " in text
    assert "![throughput (Mbit/s)](report-figures/throughput.png)" in text
    for metric_name in ("throughput", "rtt"):
        fig = results / "report-figures" / f"{metric_name}.png"
        assert fig.read_bytes().startswith(PNG_MAGIC)
    assert "- kernel: 6.1.0-28-amd64" in text and "- accel: tcg" in text
    assert "iperf3 failed: unable to connect to server" in text


@needs_mpl
def test_plot_and_report_commands(results, tmp_path, capsys):
    out = tmp_path / "fig.svg"
    assert cli.main(["plot", str(results), "--metric", "rtt", "--format", "svg",
                     "-o", str(out)]) == 0
    assert out.stat().st_size > 5000
    assert cli.main(["plot", str(results), "--x", "policy.cwnd_clamp", "--group", "none"]) == 0
    assert (results / "throughput.png").exists()
    md = tmp_path / "r" / "report.md"
    assert cli.main(["report", str(results), "-o", str(md)]) == 0
    assert "| hops | cwnd_clamp |" in md.read_text()
    assert (tmp_path / "r" / "report-figures" / "throughput.png").exists()
    assert cli.main(["plot", str(tmp_path / "nowhere")]) == 2
    assert "is not a results directory" in capsys.readouterr().err


def test_series_for_trend_assertions():
    from harness.experiment.results import select, series
    rs = load_results(DATA)
    by_hops = series(rs.records, "topology.hops", where={"policy.cwnd_clamp": None})
    assert list(by_hops) == [1, 2, 3] and by_hops[3] == pytest.approx([0.43, 0.45, 0.47])
    trends.assert_decreasing(by_hops, strict=True, regime="chain_small test data")
    by_clamp = series(rs.records, "policy.cwnd_clamp", "rtt", where={"topology.hops": 3})
    assert list(by_clamp) == [2, None] and len(by_clamp[2]) == 2  # failed run left out
    assert select(rs.records, {"topology.hops": 4}) == []
    assert len(select(rs.records, {"topology.rts": False})) == 17
    assert select(rs.records, {"topology.rts": 0}) == []  # bools are not numbers here


def test_without_matplotlib_plots_fail_clearly_and_reports_still_work(results, monkeypatch):
    import sys

    import harness.analysis.report as report_mod
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    with pytest.raises(HarnessError, match="plots need matplotlib"):
        plot(load_results(results))
    monkeypatch.setattr(report_mod, "have_matplotlib", lambda: False)
    text = write_report(results).read_text()
    assert "Figures omitted: matplotlib is not installed" in text
    assert "| 1 | 2 | 3 | 1.6 ± " in text and "![" not in text


def test_report_lists_incomplete_flows(results, monkeypatch):
    """A flow measured from its socket samples (its iperf3 client never reported) is named."""
    import json

    import harness.analysis.report as report_mod
    monkeypatch.setattr(report_mod, "have_matplotlib", lambda: False)
    path = next(p for p in sorted((results / "runs").glob("*.json"))
                if json.loads(p.read_text()).get("status") == "ok")
    rec = json.loads(path.read_text())
    rec["flows"][0]["incomplete"] = "command timed out after 90 s: iperf3 -c 10.0.0.4"
    path.write_text(json.dumps(rec))
    text = write_report(results).read_text()
    assert "## Incomplete flows" in text
    assert f"| {rec['run_id']} | " in text and "| 0 | command timed out after 90 s" in text


def _set_lag(results: Path, p99s_ms) -> list:
    """Give the ok records of the test data these lag p99s (ms), in file order; their ids."""
    import json
    ids = []
    paths = [p for p in sorted((results / "runs").glob("*.json"))
             if json.loads(p.read_text()).get("status") == "ok"]
    for path, p99 in zip(paths, p99s_ms):
        rec = json.loads(path.read_text())
        rec["medium"] = {"summary": {"lag_us": {"p50": 400.0, "p99": p99 * 1000.0}}}
        path.write_text(json.dumps(rec))
        ids.append(rec["run_id"])
    return ids


def test_report_names_the_runs_a_busy_host_lagged(results, monkeypatch):
    import harness.analysis.report as report_mod
    monkeypatch.setattr(report_mod, "have_matplotlib", lambda: False)
    ids = _set_lag(results, [4.0] * 15 + [9.0, 25.0])
    text = write_report(results).read_text()
    assert "## Medium timing" in text
    assert "median 4.0 ms, range 4.0-25.0 ms" in text
    assert "2 run(s) above 2 x the median of the other runs of their kind" in text
    assert "--retry-lagged auto" in text
    table = text.split("| run | parameters | lag p99 (ms) | others of its kind (ms) |")[1]
    assert table.index(ids[16]) < table.index(ids[15])  # worst first
    assert f"| {ids[16]} | " in table and "| 25.0 | 4.0 |" in table
    assert f"| {ids[0]} | " not in table


def test_report_says_when_no_run_lagged_and_is_silent_without_lag_data(results, monkeypatch):
    import harness.analysis.report as report_mod
    monkeypatch.setattr(report_mod, "have_matplotlib", lambda: False)
    assert "## Medium timing" not in write_report(results).read_text()
    _set_lag(results, [4.0] * 17)
    assert "No run above 2 x the median of the other runs of its kind" in write_report(results).read_text()


def _rec(rev: str, kernel: str, started: str, status: str = "ok") -> dict:
    return {"environment": {"code_revision": rev, "kernel": kernel}, "status": status,
            "timing": {"started": started}}


def test_runs_by_code_revision_only_when_the_records_mix_them():
    same = [_rec("abc", "6.1.0-56", "2026-11-27T10:00:00+00:00")] * 3
    assert provenance_lines(same) == []
    mixed = [_rec("new", "6.1.0-57", "2026-12-04T09:00:00+00:00"),
             _rec("old-dirty", "6.1.0-56", "2026-11-27T23:50:00+00:00"),
             _rec("old-dirty", "6.1.0-56", "2026-11-28T00:10:00+00:00", status="failed"),
             _rec("new", "6.1.0-57", "2026-12-04T11:00:00+00:00")]
    lines = provenance_lines(mixed)
    assert lines[0] == "## Runs by code revision"
    rows = [line for line in lines if line.startswith("| ") and "revision" not in line]
    assert rows == ["| old-dirty | 6.1.0-56 | 2 | 1 | 2026-11-27 to 2026-11-28 |",
                    "| new | 6.1.0-57 | 2 | 2 | 2026-12-04 |"]
