"""Paper 002's link-failure-average reading from synthetic records (the reader and the section,
not a measurement)."""
from __future__ import annotations

from typing import Any, Dict, Optional

from studies.p002_mesh_retry import mesh_fail_avg as F

from .test_report_002 import record


def run(i: int, hops: int, limit: int, mbps: float, build: Optional[str],
        sn: tuple = (1, 31)) -> Dict[str, Any]:
    rec = record(i, hops=hops, module="cubic", limit=limit, mbps=mbps, seconds=30)
    rec["params"]["flows"][0]["duration"] = 30
    if build:
        rec["params"]["policy"]["mac80211"] = build
    far = f"sta{hops + 1}"
    rec["policies"] = {"mesh_path": {
        "pairs": {f"sta1->{far}": {}},
        "before": {"paths": {"sta1": [{"destination_node": "sta2", "sn": 0},
                                      {"destination_node": far, "sn": sn[0]}]}},
        "after": {"paths": {"sta1": [{"destination_node": "sta2", "sn": 7},
                                     {"destination_node": far, "sn": sn[1]}]}}}}
    return rec


def test_the_reader_takes_the_build_and_the_far_end_paths_sequence_numbers():
    assert F.build_of(run(0, 3, 7, 5.0, None)) == F.STOCK
    assert F.build_of(run(1, 3, 7, 5.0, "fail-avg-3.12")) == "fail-avg-3.12 (edited)"
    assert F.far_sn_growth(run(2, 5, 3, 2.0, None, (1, 181))) == 180
    no_check = run(3, 3, 3, 2.0, None)
    del no_check["policies"]["mesh_path"]
    assert F.far_sn_growth(no_check) is None
    pair = [run(4, 3, 7, 5.0, None), run(5, 3, 7, 6.0, None)]
    pair[0]["medium"] = {"summary": {"radios": {"sta1": {"tries": [80, 15, 5]}}}}
    assert F.rows(pair)[2].startswith("| 3 | 7 | 6.1 (stock) | 2 | 5.50 (5.00-6.00) | 20.0% |")


def test_the_section_sets_each_build_beside_the_stock_one():
    recs = [run(i, hops, limit, mbps, build) for i, (hops, limit, mbps, build) in enumerate(
        [(3, 1, 1.5, None), (3, 7, 7.2, None), (3, 31, 7.2, None),
         (3, 1, 3.0, "fail-avg-3.12"), (3, 7, 7.4, "fail-avg-3.12"),
         (3, 31, 7.0, "fail-avg-3.12")])]
    lines = F.section(recs)
    assert lines[0] == "## Linux 3.12's link-failure average (a test of one reading)"
    table = [line for line in lines if line.startswith("| 3 |")]
    assert [line.split(" | ")[1:3] for line in table] == [
        ["1", F.STOCK], ["1", "fail-avg-3.12 (edited)"], ["7", F.STOCK],
        ["7", "fail-avg-3.12 (edited)"], ["31", F.STOCK], ["31", "fail-avg-3.12 (edited)"]]
    assert all(line.endswith("| 30 |") for line in table)     # SN 1 -> 31
    assert all("| - / - | 30 |" in line for line in table)     # no socket samples
    verdicts = [line for line in lines if line.startswith("- 3 hops")]
    assert verdicts[0].startswith("- 3 hops, mac80211 6.1 (stock): peak at R = 7")
    assert "; not concave; " in verdicts[0]                   # R = 31 equals the peak
    assert "peak at R = 7 (7.40 Mbit/s, inside the paper's 5-9)" in verdicts[1]
    assert "; concave (interior peak, both ends below); " in verdicts[1]
    assert verdicts[1].endswith("one run: noise unknown")
    assert F.section(recs[:3]) == []                           # no edited build: nothing to read


def test_the_stall_section_sets_the_edited_build_beside_the_sweeps_point():
    def stalled(i: int, module: str, build: Optional[str], silent: bool) -> Dict[str, Any]:
        rec = run(i, 3, 3, 0.5 if silent else 5.0, build, (1, 181 if silent else 41))
        rec["params"]["policy"]["congestion"] = module
        rec["params"]["flows"][0]["duration"] = 100
        rec["flows"][0]["throughput_bps"] = (0.5 if silent else 5.0) * 1e6
        return rec
    sweep = [stalled(i, "cubic", None, i < 3) for i in range(4)]
    edited = [stalled(10 + i, "cubic", "fail-avg-3.12", False) for i in range(4)]
    lines = F.stall_section(edited, sweep, "paper002_retry_sweep")
    assert lines[0].startswith("## The stalls at R = 3 with Linux 3.12's")
    assert "against the same point of `paper002_retry_sweep`" in lines[2]
    row = next(line for line in lines if line.startswith("| cubic |"))
    cells = row.split(" | ")
    assert cells[1] == "4" and cells[6] == "4"                  # runs: sweep, edited
    assert cells[5] == "145" and cells[10].rstrip(" |") == "40"  # mean SN growth
    assert F.stall_section([], sweep, "x") == []
    alone = F.stall_section(edited, [], None, "###")
    assert "the page sets the full sweep's runs" in alone[2]
    assert next(line for line in alone if line.startswith("| cubic |")).startswith(
        "| cubic | - | - | - | - | - | 4 |")


def test_the_window_section_sets_limited_windows_below_the_unlimited_curve():
    reading = [run(i, 5, limit, mbps, "fail-avg-3.12") for i, (limit, mbps) in
               enumerate([(3, 4.4), (31, 4.1)])] + [run(9, 5, 3, 2.4, None)]
    windowed = []
    for i, clamp in enumerate((6, 10)):
        rec = run(20 + i, 5, 31, 4.3, "fail-avg-3.12")
        rec["params"]["policy"]["cwnd_clamp"] = clamp
        windowed.append(rec)
    lines = F.window_section(windowed, reading)
    assert lines[0].startswith("## The small limit's gain at 5 hops")
    table = [line.split(" | ")[0] for line in lines if line.startswith("| R = ")]
    assert table == ["| R = 3, window unlimited", "| R = 31, window unlimited",
                     "| R = 31, window <= 6", "| R = 31, window <= 10"]
    assert F.window_section(reading, reading) == []


def faded(i: int, snr: float, limit: int, mbps: float, build: Optional[str]) -> Dict[str, Any]:
    rec = run(i, 5, limit, mbps, build)
    rec["params"]["medium"] = {"fading": "rayleigh", "fading_coherence": 160,
                               "links": [{"a": f"sta{k}", "b": f"sta{k + 1}", "snr": snr}
                                         for k in range(1, 6)]}
    return rec


def test_the_faded_section_reads_the_edited_runs_beside_the_stock_ones_at_their_snrs():
    # stock at 30 and 35 dB, the edited build only at 30 dB: 35 dB's stock runs stay out
    stock = [faded(i, snr, limit, mbps, None) for i, (snr, limit, mbps) in enumerate(
        [(30, 3, 0.3), (30, 7, 1.5), (30, 31, 3.7), (35, 3, 1.5), (35, 31, 4.1)])]
    edited = [faded(10 + i, 30, limit, mbps, "fail-avg-3.12") for i, (limit, mbps) in
              enumerate([(3, 2.0), (7, 4.2), (7, 4.3), (31, 3.8), (31, 3.7)])]
    lines = F.bursty_section(edited, stock)
    assert lines[0].startswith("## Fades in bursts with Linux 3.12's link-failure average")
    table = [line.split(" | ")[:4] for line in lines if line.startswith("| 30 |")]
    assert table == [["| 30", "3", F.STOCK, "1"], ["| 30", "3", "fail-avg-3.12 (edited)", "1"],
                     ["| 30", "7", F.STOCK, "1"], ["| 30", "7", "fail-avg-3.12 (edited)", "2"],
                     ["| 30", "31", F.STOCK, "1"], ["| 30", "31", "fail-avg-3.12 (edited)", "2"]]
    assert not any(line.startswith("| 35 |") for line in lines)
    verdicts = [line for line in lines if line.startswith("- hop SNR")]
    assert verdicts[0].startswith("- hop SNR 30 dB, mac80211 6.1 (stock): peak at R = 31")
    assert verdicts[1].startswith("- hop SNR 30 dB, mac80211 fail-avg-3.12 (edited): peak at "
                                  "R = 7 (4.25 Mbit/s, inside the paper's 5-9)")
    assert "; concave (interior peak, both ends below); " in verdicts[1]
    assert F.bursty_section([], stock) == []                    # no edited runs: nothing to read
