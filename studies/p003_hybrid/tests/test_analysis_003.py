"""Paper 003's analysis on hand-made records (pure): scenarios, shares while flows overlap,
throughput over time, the crossed pair's asymmetry, Table 1, the yardsticks."""
from __future__ import annotations

from typing import Any, Dict, List

import pytest

from studies.p003_hybrid import paper as P


def flow(sender: str, rate_mbps: float, start: float, nbytes: int = 10_000_000,
         rtt: float = 5.0, cwnd: int = 20) -> Dict[str, Any]:
    """A flow that moves ``nbytes`` at a constant rate from ``start`` (run clock)."""
    seconds = nbytes * 8 / (rate_mbps * 1e6)
    ss = [{"t": round(k * 0.1, 3), "bytes_acked": min(nbytes, int(rate_mbps * 1e6 / 8 * k * 0.1)),
           "rtt_ms": rtt, "cwnd": cwnd} for k in range(int(seconds / 0.1) + 2)]
    return {"sender": sender, "receiver": "client" if sender == "server" else "server",
            "ss_offset_s": start, "ss": ss, "completion_s": seconds, "bytes_requested": nbytes,
            "mss": 1448, "retransmits": 0}


def record(wireless: bool, flows: List[Dict[str, Any]], params_flows: List[Dict[str, Any]],
           module: str = "htcp", **extra: Any) -> Dict[str, Any]:
    for p in params_flows:
        p.setdefault("congestion", module)
    return {"status": "ok", "experiment": "paper003_lan", "repetition": 0,
            "params": {"topology": {"builder": "lan", "wireless": wireless},
                       "policy": {"congestion": "reno"}, "flows": params_flows},
            "flows": flows, **extra}


DOWN = {"src": "server", "dst": "client", "bytes": 10_000_000}
UP = {"src": "client", "dst": "server", "bytes": 10_000_000}


def test_scenarios_topologies_and_directions():
    assert P.scenario(record(False, [], [dict(DOWN)])) == "1 download"
    assert P.scenario(record(False, [], [dict(UP, count=2)])) == "2 uploads"
    assert P.scenario(record(True, [], [dict(DOWN), dict(UP)])) == "crossed"
    r = record(True, [flow("client", 20, 0)], [dict(UP)], module="vegas")
    assert P.topology(r) == "hybrid" and P.module(r) == "vegas"
    assert P.direction(r["flows"][0]) == "upload"
    assert P.flow_metrics(r)[0]["goodput_mbps"] == pytest.approx(20.0)


def test_shares_while_both_run_and_jain():
    # the upload at 15 Mbit/s, the download at 5: while both run the upload has 75 %
    r = record(True, [flow("server", 5, 0.0), flow("client", 15, 0.0)], [dict(DOWN), dict(UP)])
    shares = P.overlap_shares(r["flows"])
    assert shares == pytest.approx([0.25, 0.75], abs=0.02)
    assert P.upload_shares([r])["htcp"][0] == pytest.approx(0.75, abs=0.02)
    assert P.crossed_time_ratio([r])["htcp"][0] == pytest.approx(3.0)
    fair = record(True, [flow("server", 10, 0.0), flow("server", 10, 0.0)], [dict(DOWN, count=2)])
    assert P.jain_values([fair], "2 downloads", "hybrid")["htcp"][0] == pytest.approx(1.0)


def test_throughput_over_time_from_acknowledged_bytes():
    tr = P.throughput_trace(flow("client", 16, 2.0, nbytes=8_000_000), bin_s=1.0)
    assert [t for t, _ in tr][:2] == [2.5, 3.5]
    assert all(v == pytest.approx(16, abs=0.5) for _, v in tr)


def test_the_download_ramps_after_the_upload_ends():
    down = flow("server", 5, 0.0, nbytes=10_000_000)
    up = flow("client", 20, 0.0, nbytes=5_000_000)
    # after the upload (2 s) the download speeds up to 20 Mbit/s
    down["ss"] = [{"t": round(k * 0.1, 3), "rtt_ms": 5, "cwnd": 10,
                   "bytes_acked": int((5e6 / 8) * min(k * 0.1, 2.0)
                                      + (20e6 / 8) * max(0.0, k * 0.1 - 2.0))}
                  for k in range(60)]
    down["completion_s"] = 2.0 + (10e6 - 5e6 / 8 * 2) * 8 / 20e6
    r = record(True, [down, up], [dict(DOWN), dict(UP, bytes=5_000_000)])
    ramp = P.ramp_after_release(r)
    assert ramp is not None and ramp["during_mbps"] == pytest.approx(5, abs=0.5)
    # an instant step is read within one 0.2 s step, not a whole-second bin
    assert ramp["after_mbps"] == pytest.approx(20, abs=0.5) and ramp["ramp_s"] <= 0.2 + 1e-9


def test_table1_mm_ss_and_our_columns():
    assert P.mmss(12.15) == pytest.approx(12.25) and P.mmss(5.45) == pytest.approx(5.75)
    recs = [record(True, [flow("server", 20, 0)], [dict(DOWN)], module=m) for m in P.MODULES]
    recs[-1]["flows"][0]["completion_s"] = 100.0  # westwood slowest
    assert P.column_times(recs, "hybrid", "westwood") == {0: [100.0]}
    lines = P.table1_lines(recs)
    assert lines[2].startswith("| BIC (paper) | 12.2 |") and "(ours x80)" in lines[3]


def test_yardsticks_of_the_two_paths():
    assert P.wired_limit_mbps() == pytest.approx(94.15, abs=0.01)
    ideal = P.analytic_hybrid_mbps()
    assert 23 < ideal < 26  # 54 Mbit/s, ACKs at 24, delayed TCP ACKs (README: 23.7 in an IBSS)
    assert P.analytic_hybrid_mbps(0.1) < ideal


def test_claim_rows_on_a_tiny_result_set():
    recs = [record(False, [flow("client", 90, 0, rtt=2, cwnd=10)], [dict(UP)]),
            record(True, [flow("client", 20, 0, rtt=30, cwnd=40)], [dict(UP)])]
    rows = {r.claim.key: r for r in P.rows(recs)}
    assert rows["003.thr_ratio"].ours == pytest.approx(4.5)
    assert rows["003.time_ratio"].ours == pytest.approx(4.5)
    assert rows["003.rtt_overhead"].ours == pytest.approx(28) and \
        rows["003.rtt_overhead"].verdict == "agrees"
    assert rows["003.cwnd_hybrid"].verdict.startswith("agrees in sign")
    assert rows["003.rttmin_thr"].verdict == "not in these results"


def test_release_lines_tell_a_draining_queue_from_a_growing_window():
    # the download's cwnd stays 12 while its RTT falls from 24 to 8 ms when the upload ends
    # at 2 s; a second run's literal filter ran away (cwnd 1e9) and is named, not averaged
    down = flow("server", 5, 0.0, nbytes=5_000_000, rtt=24.0, cwnd=12)
    for s in down["ss"]:
        if s["t"] > 2.0:
            s["rtt_ms"] = 8.0
    up = flow("client", 20, 0.0, nbytes=5_000_000)
    r = record(True, [down, up], [dict(DOWN, bytes=5_000_000), dict(UP, bytes=5_000_000)])
    wild = record(True, [flow("server", 5, 0.0, nbytes=5_000_000, cwnd=10**9),
                         flow("client", 20, 0.0, nbytes=5_000_000)],
                  [dict(DOWN, bytes=5_000_000), dict(UP, bytes=5_000_000)])
    wild["params"]["policy"] = {"congestion": "hxwestwood",
                                "hxwestwood": {"filter_c": 9, "filter_norm": False}}
    lines = P.release_lines([r, wild])
    assert "falls from 24.0 to 8.0 ms" in lines[0] and "from 12.0 to 12.0 segments" in lines[0]
    assert "C 9, >>3" in lines[1] and "1e+09" in lines[1]


def test_each_claim_judged_and_the_unmeasured_ones_said():
    # wired 90 vs hybrid 20 Mbit/s for one H-TCP upload; hybrid RTT 30 ms vs 2 ms
    recs = [record(False, [flow("client", 90, 0, rtt=2, cwnd=10)], [dict(UP)]),
            record(True, [flow("client", 20, 0, rtt=30, cwnd=40)], [dict(UP)])]
    judged = {j.number: j for j in P.judged_claims(recs, [], [])}
    assert sorted(judged) == list(range(1, 10))
    assert judged[1].verdict.startswith("holds as an ordering") and "4.50x" in judged[1].ours
    assert judged[2].verdict == "differs: no spikes"  # 28 ms is in the band, no sample > 100
    for n in (4, 5, 6, 7, 8, 9):  # no two-flow runs, no E17 runs, one module
        assert judged[n].verdict == P.NOT_MEASURED, judged[n]
    # a crossed pair where the upload takes 75 %: the hybrid half of claim 5 holds
    crossed = record(True, [flow("server", 5, 0.0), flow("client", 15, 0.0)],
                     [dict(DOWN), dict(UP)])
    assert P.judge_crossed([crossed], []).verdict == "hybrid half holds"
    lines = P.claim_lines(recs, [], [])
    assert lines[0].startswith("| # | claim |") and any(l.startswith("- **Claim 1.**")
                                                      for l in lines)
