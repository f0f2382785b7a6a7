"""Paper 002's report from stored records (synthetic records: the analysis and the sections,
not a measurement), and its model rows."""
from __future__ import annotations

from typing import Any, Dict, List, Optional

import pytest

from harness.experiment.results import load_results
from harness.study import study_section as section
from harness.testing.records import store_records as store
from policies import frame_travel as ft
from studies.p002_mesh_retry import paper as P


def record(i: int, *, hops: int, module: str, limit: Optional[int], mbps: float,
           case: Optional[str] = None, seconds: int = 20,
           extra: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    policy: Dict[str, Any] = {"congestion": module}
    if limit is not None:
        policy["mac"] = {"rate": None, "rts": None, "retry_limit": limit}
    if case is not None:
        policy["airtime_retry"] = case
    per_s = mbps * 1e6 / 8
    intervals = [{"start": float(t), "end": float(t + 1), "bytes": per_s} for t in range(seconds)]
    rec = {"schema": 1, "run_id": f"r{i:04d}", "experiment": "x", "index": i, "repetition": 0,
           "seed": i, "status": "ok", "point": {"topology.hops": hops},
           "flows": [{"throughput_bps": mbps * 1e6, "bytes": int(per_s * seconds),
                      "duration": float(seconds), "mss": 1448, "intervals": intervals}],
           "params": {"topology": {"builder": "mesh_chain", "hops": hops}, "policy": policy,
                      "medium": {}, "flows": [{"src": "first", "dst": "last",
                                               "congestion": module, "count": 1}]},
           "environment": {"where": "vm", "accel": "tcg", "kernel": "6.1"}}
    rec.update(extra or {})
    return rec


def peaked(limit: int, hops: int, peak: int) -> float:
    """Concave in log2(limit) with its top at ``peak``; 5 hops carry less."""
    import math
    base = 6.0 if hops == 3 else 3.5
    return base * (1 - 0.08 * abs(math.log2(limit) - math.log2(peak)))


def sweep_records(peak3: int = 7, peak5: int = 5) -> List[Dict[str, Any]]:
    recs, i = [], 0
    for hops, peak in ((3, peak3), (5, peak5)):
        for module in P.MODULES:
            for limit in P.RETRY_LIMITS:
                for _rep in range(2):
                    recs.append(record(i, hops=hops, module=module, limit=limit,
                                       mbps=peaked(limit, hops, peak)))
                    i += 1
    return recs


def test_samples_are_whole_five_second_bins_of_the_intervals():
    rec = record(0, hops=3, module="cubic", limit=7, mbps=4.0, seconds=12)
    assert P.samples_mbps(rec) == pytest.approx([4.0, 4.0])      # 0-5, 5-10; 10-12 left out
    assert P.samples_mbps({"status": "failed"}) == []


def test_curves_group_by_module_and_limit_and_leave_policy_runs_out():
    recs = sweep_records() + [record(999, hops=3, module="cubic", limit=None, mbps=9,
                                     case="normal")]
    data = P.curves(recs, 3)
    assert list(data) == list(P.MODULES)
    assert sorted(data["cubic"]) == list(P.RETRY_LIMITS) and len(data["cubic"][7]) == 2


def test_argmax_concavity_and_gains():
    s = {1: [1.0], 3: [2.0], 7: [3.0], 31: [2.5]}
    assert P.argmax(s) == 7 and P.concave(s)
    assert not P.concave({1: [1.0], 3: [2.0], 31: [3.0]})       # peak at the end
    assert P.gains(s) == (None, None)                            # one limit inside 5-9
    s = {1: [1.0], 5: [2.0], 7: [2.5], 9: [2.4], 31: [2.2]}
    top, gain = P.gains(s)
    assert top == 2.5 and gain == pytest.approx(25.0)            # best of 5-9 over its worst
    assert P.gain_over_all(s) == pytest.approx(150.0)            # ... over limit 1


def test_sweep_rows_agree_with_a_sweep_shaped_like_the_papers():
    rows = {r.claim.key: r for r in P.rows(sweep_records())}
    for key in ("002.concave", "002.argmax", "002.small_hurts", "002.decline_3",
                "002.decline_5", "002.five_below_three", "002.cc_independent"):
        assert rows[key].verdict == "agrees", (key, rows[key])
    assert rows["002.concave"].ours == "12 of 12"


def test_sweep_rows_say_where_ours_differ():
    flat = [record(i, hops=3, module="cubic", limit=x, mbps=5.0 if x > 1 else 2.0)
            for i, x in enumerate(P.RETRY_LIMITS)]
    rows = {r.claim.key: r for r in P.rows(flat)}
    assert rows["002.concave"].verdict == "differs"        # no interior peak: flat from 3 on
    assert rows["002.small_hurts"].verdict == "agrees"
    assert rows["002.decline_5"].verdict == "not in these results"


def test_model_rows_hold_the_papers_arithmetic():
    rows = {r.claim.key: r for r in P.model_rows()}
    assert rows["002.t_normal"].ours == "236.8" and rows["002.t_best"].ours == "60.8"
    assert rows["002.worst_cross"].ours == 7 and rows["002.worst_cross"].verdict == "agrees"
    assert rows["002.normal_extra"].ours == "2-3"
    assert rows["002.test_frame"].ours == 8192


def test_metric_checks_read_the_path_check_of_a_record():
    tp = 27_000
    stations = {"sta2": {
        "02:00:00:00:00:01": {"plink": "ESTAB", "airtime_metric": ft.kernel_airtime_metric(tp),
                              "expected_throughput_kbps": tp, "tx_bitrate_mbps": 54.0,
                              "tx_packets": 90, "tx_retries": 10, "tx_failed": 0, "node": "sta1"},
        "02:00:00:00:00:04": {"plink": "BLOCKED", "airtime_metric": None,
                              "expected_throughput_kbps": None, "tx_bitrate_mbps": 1.0}}}
    rec = record(0, hops=3, module="cubic", limit=7, mbps=5,
                 extra={"policies": {"mesh_path": {"stations": stations}}})
    (one,) = P.metric_checks([rec])
    assert one["kernel"] == one["kernel_formula"] == 304 and one["peer"] == "sta1"
    assert one["eq2_phy"] == pytest.approx(ft.airtime_metric(54, 0.1))
    row = {r.claim.key: r for r in P.rows([rec])}["002.alm_kernel"]
    assert row.ours == "1 of 1 links" and "agrees" in row.verdict


def test_report_section_draws_both_figures_and_fills_the_table(tmp_path):
    root = store(tmp_path / "res", "paper002_retry_sweep", sweep_records())
    text = section(load_results(root), root / "report.md")
    assert "Paper 002: comparison with the paper" in text
    assert "paper002_throughput_vs_retry_limit.png" in text and "paper002_fig2_travel_time.png" in text
    assert (root / "report-figures" / "paper002_fig2_travel_time.png").exists()
    assert "| 236 ms | §III text, Eq. 4 (text) | 236.8 ms |" in text


def test_pages_close_with_paper_002s_own_out_of_scope_note(tmp_path):
    from harness.study.page import render
    root = store(tmp_path / "res", "paper002_retry_sweep", sweep_records())
    rs = load_results(root)
    for text in (section(rs, root / "report.md"), render("002", [rs], tmp_path / "paper002.md")):
        tail = text.split("Out of scope", 1)[1]
        assert "iperf 2.0.5" in tail and "TCP-DCA" not in tail


def test_fig2_panels_are_the_three_cases(tmp_path):
    assert P.fig2(tmp_path / "f.png").stat().st_size > 1000


# -- evidence, Eq. 5 and the channel on the paper page -----------------------------------------
def with_medium(rec, *, attempts, successes, collisions, tries, limit_drops=0):
    rec = dict(rec)
    rec["medium"] = {"summary": {
        "links": {"sta1>sta2": {"attempts": attempts, "successes": successes,
                                "collisions": collisions}},
        "radios": {"sta1": {"tries": tries, "limit_drops": limit_drops}}}}
    return rec


def test_evidence_counts_collisions_channel_failures_long_series_and_stalls():
    stalled = record(0, hops=3, module="cubic", limit=3, mbps=1.0)
    for iv in stalled["flows"][0]["intervals"][2:9]:
        iv["bytes"] = 0
    rec = with_medium(stalled, attempts=100, successes=80, collisions=15, tries=[90, 6, 2, 1, 0, 1],
                      limit_drops=30)
    assert P.stall_seconds(rec) == 7 and P.failure_shares(rec) == (0.15, 0.05)
    assert P.tries_share_over(rec) == pytest.approx(1 / 100)
    rows = P.evidence_rows([rec])
    assert rows[2] == ("| 3 | 3 | 1 | 1.00 | 1.00 | 15.0% | 5.00% | 1.00% | 1.5 | 1 | 0 | 0 | "
                       "1.00 | 0 | 0 |")


def test_a_run_whose_path_check_found_no_path_is_counted_beside_the_means():
    ok = record(0, hops=5, module="cubic", limit=1, mbps=0.5)
    failed = record(1, hops=5, module="vegas", limit=1, mbps=0.0,
                    extra={"status": "failed", "flows": [],
                           "error": "mesh_path: no ping from sta1 reached sta6 in 3 probes of "
                                    "5 (...): HWMP found no path"})
    other = dict(failed, run_id="r0002", error="iperf3 exited 1")
    assert P.no_path(failed) and not P.no_path(ok) and not P.no_path(other)
    rows = P.evidence_rows([ok, failed, other])
    assert rows[2].startswith("| 5 | 1 | 1 | 0.50 | 0.50 |") and rows[2].endswith("| 1 |")
    assert len(rows) == 3
    # the mean over limit 1 is the run that carried a flow, not a zero
    assert P.curves([ok, failed], 5)["cubic"] == {1: [0.5]}


def ss(t, acked, retrans, state=0, unacked=10, rtt=50.0, rttvar=10.0):
    return {"t": t, "local": "10.0.0.1:1", "peer": "10.0.0.4:5201", "bytes_acked": acked,
            "retrans_total": retrans, "ca_state": state, "unacked": unacked, "rtt_ms": rtt,
            "rttvar_ms": rttvar}


def test_held_counts_only_holds_without_a_timeout_longer_than_twice_it():
    rec = record(0, hops=3, module="bic", limit=7, mbps=1.0)
    flow = rec["flows"][0]
    # progress, then 3 s Open with nothing acked or retransmitted (the timer never fired)
    flow["ss"] = [ss(0.0, 0, 0), ss(0.5, 100, 0)] + [ss(0.5 + k / 2, 200, 0) for k in range(1, 8)]
    assert P.held_seconds(rec) == pytest.approx(3.0)
    # the same silence in Loss (the timer fired) or with a retransmission is no hold
    flow["ss"] = [ss(0.5 + k / 2, 200, 0, state=4) for k in range(8)]
    assert P.held_seconds(rec) == 0
    flow["ss"] = [ss(0.5 + k / 2, 200, k) for k in range(8)]
    assert P.held_seconds(rec) == 0
    # shorter than twice a long timeout (srtt 300 + 4 x 200 ms = 1.1 s): no hold
    flow["ss"] = [ss(k / 2, 200, 0, rtt=300.0, rttvar=200.0) for k in range(4)]
    assert P.held_seconds(rec) == 0
    # the kernel's own timeout, where sampled, decides: 3 s of silence under a 3 s timeout
    flow["ss"] = [dict(ss(k / 2, 200, 0), rto_ms=2968.0) for k in range(8)]
    assert P.held_seconds(rec) == 0
    flow["ss"] = [dict(ss(k / 2, 200, 0), rto_ms=400.0) for k in range(8)]
    assert P.held_seconds(rec) == pytest.approx(3.5)
    flow["ss"] = [ss(k / 2, 200, 0, unacked=0) for k in range(8)]   # idle, nothing in flight
    assert P.held_seconds(rec) == 0


def test_path_lost_reads_the_sender_path_after_the_flow():
    check = {"pairs": {"sta1->sta4": {"path": ["sta1", "sta2", "sta3", "sta4"]}},
             "after": {"paths": {"sta1": [{"destination_node": "sta4", "flags": 0x4}]}}}
    rec = record(0, hops=3, module="cubic", limit=3, mbps=1.0,
                 extra={"policies": {"mesh_path": check}})
    assert P.path_lost(rec)
    check["after"]["paths"]["sta1"][0]["flags"] = 0x15
    assert not P.path_lost(rec)


def test_policy_and_channel_sections(tmp_path):
    sweep = sweep_records()
    policy = []
    for i, (h, mod) in enumerate([(3, "cubic"), (5, "cubic")]):
        rec = record(1000 + i, hops=h, module=mod, limit=None, mbps=6.2 if h == 3 else 3.6,
                     case="normal")
        rec["policies"] = {"airtime_retry": {"history": [
            {"t": 0, "nodes": {"sta1": {"limit": 4}}}, {"t": 5, "nodes": {"sta1": {"limit": 10}}}]}}
        policy.append(rec)
    rows = P.policy_rows(policy, sweep)
    assert rows[0].startswith("| hops | module | Eq. 5 normal | best fixed (R) | R = 7 |")
    assert any(r.startswith("| 3 | cubic | 6.20 | 6.00 (7) |") for r in rows), rows
    assert P.policy_limits(policy, 3) == {"normal": [4, 10]}
    chan = []
    for i, (medium, limit, mbps) in enumerate([({"exponent": 2.0}, 1, 1.0), ({"exponent": 2.0}, 7, 3.0),
                                               ({"exponent": 3.5, "shadowing": 5.0, "fading": "rayleigh"}, 7, 2.9)]):
        rec = record(2000 + i, hops=5, module="cubic", limit=limit, mbps=mbps)
        rec["params"]["medium"] = medium
        chan.append(rec)
    rows = P.channel_rows(chan)
    assert "| slope 2, no shadowing, no fading | 1.00 | 3.00 | 7 |" in rows[2]
    assert rows[3].startswith("| slope 3.5, shadowing 5 dB, rayleigh fading | - | 2.90 | 7 |")
    from harness.experiment.results import load_results
    sets = [load_results(store(tmp_path / n, f"paper002_{n}", r))
            for n, r in (("retry_sweep", sweep), ("airtime_retry", policy), ("channel", chan))]
    page = "\n".join(P.page_sections(sets))
    for heading in ("## The paper's arithmetic", "## The Eq. 5 policy beside the fixed limits",
                    "## How the curve moves with the channel"):
        assert heading in page


def test_start_rows_set_the_policys_first_5_s_beside_the_default_limit():
    slow_start = record(0, hops=5, module="cubic", limit=None, mbps=4.0, case="normal")
    for iv in slow_start["flows"][0]["intervals"][:5]:
        iv["bytes"] = 2.0e6 / 8                                  # 2 Mbit/s in the first 5 s
    fixed = record(1, hops=5, module="cubic", limit=7, mbps=4.0)
    other = record(2, hops=5, module="cubic", limit=3, mbps=1.0)
    assert P.first_and_rest([slow_start]) == (pytest.approx(2.0), pytest.approx(4.0))
    rows = P.start_rows([slow_start], [fixed, other])
    assert rows[2:] == ["| 5 | Eq. 5 normal | 1 | 2.00 | 4.00 |", "| 5 | R = 7 | 1 | 4.00 | 4.00 |"]


def test_the_policy_is_set_beside_the_sweep_of_its_own_flow_length(tmp_path):
    """The page's claims read the first sweep given (the full file's 100 s runs); Eq. 5 is
    compared with the sweep whose flows are as long as its own, wherever that one is listed,
    and with none if no sweep matches; of several policy files the full one is compared."""
    from harness.experiment.results import load_results

    def lasting(recs, seconds, scale=1.0):
        for rec in recs:
            rec["params"]["flows"][0]["duration"] = seconds
            rec["flows"][0]["throughput_bps"] *= scale
        return recs

    full, reduced = lasting(sweep_records(), 100), lasting(sweep_records(), 30, scale=0.5)
    policy = lasting([record(1000, hops=3, module="cubic", limit=None, mbps=3.1,
                             case="normal")], 30)
    policy[0]["policies"] = {"airtime_retry": {"history": []}}
    assert P.flow_seconds(full) == {100.0} and P.flow_seconds(policy) == {30.0}

    def page(*named):
        sets = [load_results(store(tmp_path / f"{n}{len(named)}", f"paper002_{n}", r))
                for n, r in named]
        return "\n".join(P.page_sections(sets))

    text = page(("retry_sweep", full), ("airtime_retry", policy), ("retry_sweep_reduced", reduced))
    assert "beside `paper002_retry_sweep_reduced`" in text
    assert "| 3 | cubic | 3.10 | 3.00 (7) |" in text           # the 30 s runs' peak
    text = page(("retry_sweep", full), ("airtime_retry", policy))
    full_policy = lasting([record(1001, hops=3, module="cubic", limit=None, mbps=3.2,
                                  case="normal")], 100)
    full_policy[0]["policies"] = {"airtime_retry": {"history": []}}
    text = page(("retry_sweep", full), ("airtime_retry_reduced", policy),
                ("airtime_retry", full_policy), ("retry_sweep_reduced", reduced))
    assert "`paper002_airtime_retry`: every mesh point" in text     # the full file, listed second
    assert "beside `paper002_retry_sweep` (" in text                 # and the sweep of its length


def test_silent_timeouts_count_timeouts_that_retransmitted_nothing():
    """The stall at R = 3: the timer fires (backoff grows) and ``retrans_total`` stands still,
    because the segment's copy is held below TCP; a timeout that retransmits is not silent."""
    rec = record(0, hops=3, module="westwood", limit=3, mbps=1.0)
    flow = rec["flows"][0]
    flow["ss"] = [dict(ss(k, 200, 5, state=4), backoff=k) for k in range(4)]    # 3 silent
    assert P.silent_timeouts(rec) == 3
    flow["ss"] = [dict(ss(k, 200, 5 + k, state=4), backoff=k) for k in range(4)]  # each sent
    assert P.silent_timeouts(rec) == 0
    flow["ss"] = [dict(ss(k, 200, 5, state=4), backoff=min(k, 1)) for k in range(4)]
    assert P.silent_timeouts(rec) == 1
    assert P.evidence_rows([rec])[2].endswith("| 0 | 1.00 | 0 | 0 |")    # one silent: not counted
    flow["ss"] = [dict(ss(k, 200, 5, state=4), backoff=k) for k in range(4)]
    assert P.evidence_rows([rec])[2].endswith("| 1 | nan | 0 | 0 |")     # no other run
    clean = record(1, hops=3, module="cubic", limit=3, mbps=3.0)
    assert P.evidence_rows([rec, clean])[2].endswith("| 1 | 3.00 | 0 | 0 |")
    assert P.without_silent([rec, clean]) == [clean]


def test_the_claims_are_read_again_without_the_runs_whose_timeouts_sent_nothing():
    recs = sweep_records()
    assert P.silent_sensitivity(recs) == []                      # none silent: nothing to say
    odd = record(999, hops=3, module="cubic", limit=31, mbps=20.0)  # lifts the plateau's end
    odd["flows"][0]["ss"] = [{"t": 0.5 * k, "local": "a", "peer": "b", "backoff": k,
                              "retrans_total": 5} for k in range(4)]
    lines = P.silent_sensitivity(recs + [odd])
    assert lines[0].startswith("Read without the 1 runs whose timeouts sent nothing "
                               f"({len(recs)} of {len(recs) + 1} runs kept)")
    assert any(line.startswith("- throughput concave in the retry limit") and
               "11 of 12 (partly) -> 12 of 12 (agrees)" in line for line in lines)


def test_the_plateau_holds_the_limits_within_the_peaks_own_runs_spread():
    # peak R = 9 (mean 7.25, runs 7.2-7.3: 1.4 % apart); R = 16 and 31 within that, 5 not
    series = {5: [6.0, 6.1], 7: [7.0, 7.1], 9: [7.2, 7.3], 16: [7.2, 7.26], 31: [7.19, 7.21]}
    assert P.plateau(series) == [9, 16, 31]
    assert P.plateau({3: [4.0], 7: [3.9]}) == [3]           # one run: no spread, the peak alone


def test_the_peak_section_counts_resolved_peaks_and_flat_ends():
    recs = []
    for i, (limit, mbps) in enumerate([(1, 1.0), (1, 1.1), (7, 5.0), (7, 5.2), (31, 5.1),
                                       (31, 5.15)]):
        recs.append(record(i, hops=3, module="cubic", limit=limit, mbps=mbps))
    lines = P.peak_section(recs, "paper002_x")
    assert lines[0].startswith("## Where the peak lies")
    assert any(line.startswith("| 3 | cubic | 31 | 2 | (R = 7) +0.5%") for line in lines)
    assert lines[-2] == ("0 of 1 peaks resolved; the plateau reaches into the paper's 5-9 in "
                         "1 of 1 and holds the largest limit in 1 of 1 (there no decline the "
                         "runs can tell).")
    assert P.peak_section([], "paper002_x") == []


def test_a_peak_inside_its_runs_spread_is_called_unresolved():
    # the 5-hop shape: R = 3 above every larger limit by more than its runs' spread
    clear = P.peak_resolution({1: [0.4, 0.7], 3: [4.37, 4.34, 4.40], 5: [4.09, 4.12, 4.15]})
    assert clear.startswith("peak over the next best (R = 5) +6.1%")
    assert clear.endswith("(resolved)")
    # a flat curve: the peak's margin smaller than one run's difference from another
    flat = P.peak_resolution({9: [7.20, 7.29, 7.25], 16: [7.19, 7.21, 7.21]})
    assert "not resolved" in flat
    assert P.peak_resolution({7: [4.1]}) == "one limit only"
