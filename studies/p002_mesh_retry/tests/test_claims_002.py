"""Paper 002 (Rethfeldt et al., IEEE 802.11s) on the emulator, in the paper's regime: an
enforced 3- or 5-hop 802.11s chain in one room (builder mesh_chain, peer links only along the
chain, HWMP with the airtime metric), 802.11g with minstrel, RTS/CTS off, the TGn indoor
channel's parameters below their breakpoint, one TCP flow first -> last.

Claims (papers.md 002.4, catalogue E10-E12):
- the retry limit R is what the medium enforces on every radio (its counters and, frame by
  frame, its capture), and the path in force is the declared chain (policy mesh_path);
- the airtime metric the kernel reports is Eq. 2 in Linux's fixed point on minstrel's expected
  throughput (e = 0), not on the PHY rate: the difference is minstrel's per-frame MAC cost;
- limit 1 loses to the default 7 (002.4 claim 2);
- the Eq. 5 policy sets on every mesh point the limit Eq. 5 gives for its own path table, and
  the medium enforces it;
- slow: every module at 3 and 5 hops peaks at a limit in [5, 9] with both ends below the peak
  and the peak out of its runs' noise (claim 1; ``peak_resolution``: a flat curve lands its
  best mean in 5-9 by chance), the decline earlier at 5 hops than at 3 (claim 3), one shape
  for every module (claim 4), 5 hops below 3 hops (claim 6), and where frames' retry series
  end (our explanation when the decline beyond the peak is missing). Claim 5 (Eq. 4's
  arithmetic) is tests/unit/test_frame_travel.py.
Quick: studies/p002_mesh_retry/experiments/002_retry_sweep_quick.yaml (2 runs), 002_airtime_retry_quick.yaml
(1 run): about 5 minutes of VM time. Slow: 002_retry_sweep_reduced.yaml, 002_airtime_retry_reduced.yaml
(every point, 2 x 30 s), then the full files (10 x 100 s; see docs/papers.md for the hours).
"""
from __future__ import annotations

from typing import Any, Dict, List, Mapping

import pytest

from harness.analysis import records as A
from harness.analysis import trends
from harness.medium.pcap import frame_tries, read_attempts
from harness.testing.study_runs import cases, not_reproduced, run_file, show, stored
from policies import frame_travel as ft
from studies.p002_mesh_retry import mesh_claims as C
from studies.p002_mesh_retry import paper as P

pytestmark = [pytest.mark.emulation, pytest.mark.paper]

REGIME = {"paper": "002", "phy": "802.11g, minstrel", "rts": "off", "mesh": "enforced chain",
          "channel": "TGn below breakpoint (slope 2, 3 dB shadowing, Rayleigh)"}
WHAT = "throughput (Mbit/s)"


def radios(rec: Mapping[str, Any]) -> Dict[str, Dict[str, Any]]:
    """The medium's counters of the run's radios: one per node of the chain (hops + 1), so a
    check that loops over them cannot pass on none."""
    got = rec["medium"]["summary"]["radios"]
    hops = rec["params"]["topology"]["hops"]
    assert len(got) == hops + 1, f"{rec['run_id']}: {len(got)} radios counted on {hops} hops"
    return got


def check_limit_enforced(records: List[Mapping[str, Any]]) -> None:
    """Every radio ran with the run's limit, no frame got more transmissions than the two
    counters allow (R without RTS and R after a CTS: at most 2R - 1 in all), and the path
    check held before and after the flow."""
    assert records, "no finished run: the retry limits were not checked"
    for rec in records:
        limit = P.limit_of(rec)
        check = rec["policies"]["mesh_path"]
        assert check["pairs"] and not any(check["stray_attempts"].values()), check
        for node, r in radios(rec).items():
            text = f"{rec['run_id']} {node}: limit {limit}, medium {r}"
            print(text)
            assert r["retry_short"] == r["retry_long"] == limit, text
            assert len(r["tries"]) <= 2 * limit - 1, text
            if limit == 1:
                assert r["tries"] == [r["tries"][0]] and r["retry_drops"] == r["limit_drops"], text


def check_capture(rec: Mapping[str, Any]) -> None:
    """The retry-limit test's rules frame by frame from the medium's capture (docs/medium.md):
    no frame gets more than R data transmissions without RTS, none after its R-th such failure,
    and none more than R after a CTS."""
    limit = P.limit_of(rec)
    pcap = rec["medium"].get("pcap")
    assert pcap, "the quick run keeps the medium's capture (medium.pcap: true)"
    attempts = read_attempts(pcap)
    macs = sorted({a.ta for a in attempts if a.kind == "data" and a.ta})
    frames = [f for ta in macs for ra in macs if ta != ra for f in frame_tries(attempts, ta, ra)]
    plain_over = [f for f in frames if len(f.plain) > limit]
    long_over = [f for f in frames if len(f.protected) > limit]
    after_last = [f for f in frames
                  if len(f.plain) >= limit and f.tries.index(f.plain[limit - 1]) < len(f.tries) - 1]
    hist: Dict[int, int] = {}
    for f in frames:
        hist[len(f.tries)] = hist.get(len(f.tries), 0) + 1
    print(f"R={limit}: {len(frames)} unicast frames in the capture, data transmissions per "
          f"frame {dict(sorted(hist.items()))}; over R without RTS {len(plain_over)}, after the "
          f"R-th failure {len(after_last)}, over R after a CTS {len(long_over)}")
    assert len(frames) > 1000
    assert not plain_over and not long_over and not after_last


def check_metric(records: List[Mapping[str, Any]]) -> None:
    """The kernel's metric on every established link equals Linux's Eq. 2 on minstrel's
    expected throughput (+-1 for the rounding of iw's printed number); Eq. 2 on the PHY rate
    (the paper's reading) is smaller by about rate / expected throughput, because minstrel's
    throughput has the MAC's per-frame overhead taken out of the PHY rate."""
    checks = P.metric_checks(records)
    assert checks, "no established peer links recorded"
    for c in checks:
        line = (f"{c['node']}->{c['peer']}: kernel {c['kernel']}, Linux formula "
                f"{c['kernel_formula']} (expected throughput {c['expected_tp_mbps']:.2f} Mbit/s), "
                f"Eq. 2 at the PHY rate {c['tx_rate_mbps']:g} Mbit/s with e = {c['err']:.2f}: "
                f"{c['eq2_phy']:.0f}")
        print(line)
        assert abs(c["kernel"] - c["kernel_formula"]) <= 1, line
        assert c["expected_tp_mbps"] < 0.6 * c["tx_rate_mbps"], line
        assert c["kernel"] > 1.5 * c["eq2_phy"], line


def check_eq5(rec: Mapping[str, Any]) -> None:
    """Each mesh point's limit is Eq. 5 on its own recorded diameter, the medium enforces the
    last one, and the policy ran again during the flow. The diameter is the chain's 3 hops at
    most evaluations; HWMP may know only the next hop for a moment while it re-resolves a
    path (measured: sta1 at 10 s of the quick run, 1 hop, limit 20), and the policy then
    decides on what it sees, which is what Eq. 5 asks."""
    policy = rec["policies"]["airtime_retry"]
    case = ft.case(policy["value"])
    history = policy["history"]
    assert len(history) >= 2, f"evaluated {len(history)} time(s)"
    full: Dict[str, List[bool]] = {}
    for step in history:
        assert set(step["nodes"]) == set(radios(rec)), (step["t"], sorted(step["nodes"]))
        for node, d in step["nodes"].items():
            want = ft.retry_limit_for(d["diameter_metric"], d["diameter_hops"], case)
            print(f"t={step['t']} {node}: diameter {d['diameter_metric']:.0f} over "
                  f"{d['diameter_hops']} hops -> limit {d['limit']} (T_MultiHop "
                  f"{d['t_multihop_ms']} ms)")
            assert d["limit"] == want, (node, d)
            full.setdefault(node, []).append(d["diameter_hops"] == 3)
    assert len(full) == len(radios(rec)) == 4, sorted(full)
    for node, seen in full.items():
        assert 2 * sum(seen) > len(seen), (node, seen)
    for node, r in radios(rec).items():
        assert r["retry_short"] == policy["limits"][node], (node, r, policy["limits"])
    assert rec["flows"][0]["throughput_bps"] > 0.5e6


# -- quick (CI) ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def quick_sweep(tmp_path_factory):
    return run_file("002_retry_sweep_quick", tmp_path_factory.mktemp("p002") / "sweep")


def test_path_in_force_and_retry_limit_enforced(quick_sweep):
    check_limit_enforced(quick_sweep.ok)
    for rec in quick_sweep.ok:
        check_capture(rec)


def test_kernel_metric_is_eq2_on_minstrels_expected_throughput(quick_sweep):
    check_metric(quick_sweep.ok)


def test_retry_limit_1_loses_to_the_default_7(quick_sweep):
    s = P.curves(quick_sweep.ok, 3)["cubic"]
    show(s, WHAT, "retry limit", {**REGIME, "hops": 3, "tcp": "cubic"})
    trends.assert_ordering({"R = 7": s[7], "R = 1": s[1]}, strict=True, what=WHAT,
                           x_name="retry limit", regime={**REGIME, "hops": 3})


def test_eq5_policy_sets_the_limit_of_its_own_table_on_every_mesh_point(tmp_path):
    rs = run_file("002_airtime_retry_quick", tmp_path / "eq5")
    assert rs.ok, "no finished run: Eq. 5 was not checked"
    for rec in rs.ok:
        check_eq5(rec)


# -- slow (every point, then the paper's full suite) -------------------------------------------
SWEEPS = ["002_retry_sweep_reduced", "002_retry_sweep"]


@pytest.mark.slow
@pytest.mark.parametrize("name", cases(SWEEPS, {
    "002_retry_sweep_reduced": "paper (claim 1): every module peaks at R = 5-9, both ends below; "
                               "ours: 7 of 12 curves peak outside 5-9 (at 16 or 31) and of the "
                               "5 inside only one peak stands out of its runs' spread "
                               "(margins 0.1-1.4 % against 0.6-1.8 %)",
    "002_retry_sweep": "paper (claim 1): every module peaks at R = 5-9, both ends below; ours "
                       "over 840 runs: a rise to a plateau holding R = 31 on all 12 curves, no "
                       "peak resolved (margins 0.0-0.6 % against runs 1.8-4.4 % apart)",
}))
def test_full_every_module_peaks_inside_5_to_9_with_both_ends_below(name):
    rs = run_file(name, outcome=P.no_path)
    check_limit_enforced(rs.ok)
    failures = []
    for hops in (3, 5):
        for module, s in P.curves(rs.ok, hops).items():
            regime = {**REGIME, "hops": hops, "tcp": module, "experiment": name}
            show(s, WHAT, "retry limit", regime)
            try:
                trends.assert_argmax_in(s, *P.PEAK_BAND, what=WHAT, x_name="retry limit",
                                        regime=regime)
                assert P.concave(s), f"{hops} hops {module}: no interior peak with both ends below"
                assert P.peak_resolved(s), \
                    f"{hops} hops {module}: {P.peak_resolution(s)}"
            except AssertionError as err:
                failures.append(str(err))
    assert not failures, "\n\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("name", SWEEPS)
def test_full_limit_1_below_7_and_5_hops_below_3(name):
    rs = run_file(name, outcome=P.no_path)
    for hops in (3, 5):
        curves = P.curves(rs.ok, hops)
        assert sorted(curves) == sorted(P.MODULES), f"{hops} hops: curves of {sorted(curves)}"
        for module, s in curves.items():
            if 1 not in s:      # every run at R = 1 found no path: no flow, below R = 7
                print(f"{hops} hops {module}: R = 1 carried no flow (HWMP found no path)")
                continue
            trends.assert_ordering({"R = 7": s[7], "R = 1": s[1]}, strict=True, what=WHAT,
                                   x_name="retry limit", regime={**REGIME, "hops": hops,
                                                                 "tcp": module})
    three, five = P.curves(rs.ok, 3), P.curves(rs.ok, 5)
    for module in five:
        for limit in five[module]:
            trends.assert_ordering({"3 hops": three[module][limit], "5 hops": five[module][limit]},
                                   strict=True, what=WHAT, x_name="path length",
                                   regime={**REGIME, "tcp": module, "retry limit": limit})


@pytest.mark.slow
@pytest.mark.parametrize("name", cases(SWEEPS, {
    "002_retry_sweep_reduced": "paper (claim 3): the curve turns down beyond a peak at R <= 7 "
                               "at 5 hops, R <= 9 at 3 hops; ours over the reduced sweep: 9 of "
                               "12 curves peak at R = 9-31 or hold R = 31 within the peak's runs' "
                               "spread (R = 31 at most 1.5 % below the peak)",
    "002_retry_sweep": "paper (claim 3): the curve turns down beyond a peak at R <= 7 at 5 hops, "
                       "R <= 9 at 3 hops; ours over 840 runs: no curve of the 12 does, R = 31 "
                       "0.0-1.6 % below the peak, within its runs' spread (a plateau)",
}))
def test_full_the_decline_starts_earlier_on_the_longer_path(name):
    """Claim 3: at 5 hops every module's curve turns down beyond a peak at R <= 7, at 3 hops
    beyond a peak at R <= 9; turning down: the largest limit lies outside the peak's own runs'
    spread (``mesh_claims.declines``), so a plateau does not pass by chance."""
    rs = run_file(name, outcome=P.no_path)
    failures = []
    for hops, last in ((5, 7), (3, 9)):
        for module, s in P.curves(rs.ok, hops).items():
            show(s, WHAT, "retry limit", {**REGIME, "hops": hops, "tcp": module,
                                          "experiment": name})
            if not ((P.argmax(s) or 99) <= last and C.declines(s)):
                failures.append(f"{hops} hops {module}: {C.curve_text(s)}; no decline beyond "
                                f"a peak at R <= {last} (plateau {P.plateau(s)})")
    assert not failures, "\n".join(failures)


@pytest.mark.slow
@pytest.mark.parametrize("name", cases(SWEEPS, {
    "002_retry_sweep_reduced": "paper (claim 4): every module's curve has one shape; ours over "
                               "the reduced sweep (2 x 30 s): at 3 hops 5 modules rise to a "
                               "plateau, illinois peaks then declines (its two runs at R = 31 "
                               "below its peak's); the full sweep's 12 curves share one shape",
}))
def test_full_every_module_has_the_same_shape(name):
    """Claim 4: at each path length the six modules' curves share one shape, a peak with a
    decline beyond it or a rise to a plateau that holds the largest limit
    (``mesh_claims.shape_of``); where the argmax lands on a plateau is not a shape."""
    rs = run_file(name, outcome=P.no_path)
    for hops in (3, 5):
        shapes = {module: C.shape_of(s) for module, s in P.curves(rs.ok, hops).items()}
        print(f"{name}, {hops} hops: {shapes}")
        assert len(shapes) == len(P.MODULES), shapes
        assert len(set(shapes.values())) == 1 and "neither" not in shapes.values(), shapes


@pytest.mark.slow
@pytest.mark.parametrize("name", SWEEPS)
def test_full_where_retry_series_end(name):
    """Our explanation for a missing decline beyond the peak: with the medium's losses
    (collisions in one carrier-sense domain, fading far below the margin) a frame almost never
    needs more than a few transmissions, so limits of 7 and above change nothing. Asserted:
    at R >= 7 fewer than 1 % of unicast frames use more than 5 transmissions."""
    rs = run_file(name, outcome=P.no_path)
    high = [rec for rec in rs.ok if (P.limit_of(rec) or 0) >= 7]
    assert high, f"{name}: no finished run with a retry limit of 7 or more"
    for rec in high:
        tries = [0] * 32
        for r in radios(rec).values():
            for k, n in enumerate(r["tries"]):
                tries[k] += n
        assert sum(tries), f"{rec['run_id']}: the medium counted no unicast frame"
        share = sum(tries[5:]) / sum(tries)
        print(f"{rec['run_id']} {rec['point']}: {share:.3%} of frames used more than 5 "
              f"transmissions")
        assert share < 0.01, (rec["point"], tries)


@pytest.mark.slow
@pytest.mark.parametrize("name", ["002_airtime_retry_reduced", "002_airtime_retry"])
def test_full_eq5_policy_holds_its_limits(name):
    rs = run_file(name, outcome=P.no_path)
    assert rs.ok, f"{name}: no finished run: the policy's limits were not checked"
    for rec in rs.ok:
        policy = rec["policies"]["airtime_retry"]
        case = ft.case(policy["value"])
        decided = [d for step in policy["history"] for d in step["nodes"].values()
                   if d["limit"] is not None]
        assert decided, f"{rec['run_id']}: the policy decided no limit"
        for d in decided:
            assert d["limit"] == ft.retry_limit_for(d["diameter_metric"], d["diameter_hops"], case)
        assert all(r["retry_short"] == policy["limits"][n] for n, r in radios(rec).items())
    assert A.collect(rs.ok, "topology.hops", P.throughput_mbps)


# -- slow: tests of readings (not the model) ---------------------------------------------------
@pytest.mark.slow
@not_reproduced("paper: throughput peaks at R = 5-9 and declines beyond; ours at 5 hops with 0.3 "
                "loss per PPDU and one retry series: 0.49, 0.80, 0.41, 0.17 Mbit/s at R = 3-9, "
                "no flow at 16, 1.47 at R = 31, the argmax (002_lossy_hops)")
def test_full_lossy_hops_bring_the_papers_decline():
    """The reading under test: the paper's decline beyond the peak needs frames that use long
    retry series, which our one-room channel does not give. With every hop losing about half
    its exchanges (0.3 per PPDU) and every frame tried to the limit in one series
    (002_lossy_hops.yaml), the 5-hop curve should peak inside 5-9 with both ends below it."""
    from studies.p002_mesh_retry import mesh_lossy as L
    rs = run_file("002_lossy_hops", outcome=P.no_path)
    print("\n".join(L.section(rs.records)))
    series = L.curves(rs.ok)[0.3]
    regime = {**REGIME, "hops": 5, "tcp": "cubic", "hop loss per PPDU": 0.3,
              "retry series": "single", "experiment": "002_lossy_hops"}
    show(series, WHAT, "retry limit", regime)
    trends.assert_argmax_in(series, *P.PEAK_BAND, what=WHAT, x_name="retry limit", regime=regime)
    assert P.concave(series), "no interior peak with both ends below"


@pytest.mark.slow
@pytest.mark.parametrize("snr", cases(("20.0", "25.0", "30.0", "35.0"), {
    "20.0": "paper: a peak at R = 5-9 with a decline beyond; ours on 20 dB hops with 160 ms fades: "
          "the path collapses at every limit (0.19 Mbit/s at best, R = 31) (002_bursty_hops)",
    "25.0": "paper: a peak at R = 5-9 with a decline beyond; ours on 25 dB hops with 160 ms fades: "
          "a rise to R = 31 (0.01-0.26 Mbit/s at R = 3-9, 1.23 at 16, 1.88 at 31) "
          "(002_bursty_hops)",
    "30.0": "paper: a peak at R = 5-9 with a decline beyond; ours on 30 dB hops with 160 ms fades: "
          "argmax R = 16 (3.71 Mbit/s), R = 31 3.67, R = 9 2.16 (002_bursty_hops)",
    "35.0": "paper: a peak at R = 5-9 with a decline beyond; ours on 35 dB hops with 160 ms fades: "
          "argmax R = 16 (4.19 Mbit/s), R = 31 4.11, R = 9 4.02 (002_bursty_hops)",
}, values=(20.0, 25.0, 30.0, 35.0)))
def test_full_fades_in_bursts_bring_the_papers_decline(snr):
    """The reading under test: the paper's decline beyond the peak needs losses in bursts. With
    every hop's mean SNR 0-14 dB above what 54 Mbit/s needs and Rayleigh fades drifting with
    the TGn models' coherence time of 160 ms, every frame tried to the limit in one series
    (002_bursty_hops.yaml), a fading hop holds its head frame for up to R tries, a delay the
    sender's RTO has not learned: the 5-hop curve should peak inside 5-9 with both ends below
    it at each SNR (a path that collapsed at every limit fails too: no curve to judge)."""
    from studies.p002_mesh_retry import mesh_bursty as B
    from studies.p002_mesh_retry import mesh_lossy as L
    rs = run_file("002_bursty_hops", outcome=P.no_path)
    print("\n".join(B.section(rs.records)))
    series = L.curves(rs.ok, B.BURSTY)[snr]
    assert not L.collapsed(series), "the path collapsed at every limit: no curve to judge"
    regime = {**REGIME, "hops": 5, "tcp": "cubic", "hop SNR (dB)": snr,
              "fading": "Rayleigh, coherence 160 ms", "retry series": "single",
              "experiment": "002_bursty_hops"}
    show(series, WHAT, "retry limit", regime)
    trends.assert_argmax_in(series, *P.PEAK_BAND, what=WHAT, x_name="retry limit", regime=regime)
    assert P.concave(series), "no interior peak with both ends below"


def assert_stalls_freed(changed: List[Mapping[str, Any]], sweep: List[Mapping[str, Any]],
                        label: str) -> None:
    """At 3 hops and R = 3, over the modules ``changed`` ran: the sweep has more than half of
    its runs with timeouts that sent nothing, ``changed`` fewer than a quarter."""
    from studies.p002_mesh_retry import mesh_stall as S
    s_with, n_with, s_without, n_without = S.silent_counts(changed, sweep)
    print(f"silent-timeout runs: {s_without} of {n_without} in the sweep, {s_with} of {n_with} "
          f"{label}")
    assert 2 * s_without > n_without, "the sweep's point no longer stalls: nothing to test"
    assert 4 * s_with < n_with, f"{s_with} of {n_with} runs still stall {label}"


@pytest.mark.slow
def test_full_a_trickle_to_the_far_end_frees_the_stalls():
    """The diagnosis under test: at 3 hops and R = 3 the flows stall because the segment's
    copy is held in the queue of a mesh path that only a new frame to the far end revives. A
    16 kbit/s UDP flow to the same receiver (002_stall_nudge.yaml) should then leave fewer than
    a quarter of the runs with timeouts that send nothing, where the sweep's same point and
    modules have more than half."""
    from studies.p002_mesh_retry import mesh_stall as S
    nudged = run_file("002_stall_nudge", outcome=P.no_path)
    sweep = stored("002_retry_sweep")      # the baseline: its stored passes (the file takes days)
    print("\n".join(S.section(nudged.ok, sweep.ok, "paper002_retry_sweep")))
    assert_stalls_freed(nudged.ok, sweep.ok, "with the trickle")


@pytest.mark.slow
@pytest.mark.parametrize("hops", cases(("3", "5"), {
    "3": "paper: a peak at R = 5-9, both ends below, out of the runs' noise; ours at 3 hops on "
         "3.12's link-failure average: flat from R = 3 (7.16-7.23 Mbit/s), best mean 0.3 % over "
         "the next with runs 2.0 % apart, not resolved (002_fail_avg)",
    "5": "paper: a peak at R = 5-9, both ends below; ours at 5 hops on 3.12's link-failure "
         "average: the peak at R = 3 (4.37 Mbit/s against 4.09-4.15 at R = 5-31) "
         "(002_fail_avg)",
}, values=(3, 5)))
def test_full_linux_312s_link_failure_average_brings_the_papers_shape(hops):
    """The reading under test: our curves' shape is Linux 6.1's, which breaks a mesh peer link
    (and every path through it) on one frame dropped at the retry limit after a clean run of
    frames; the paper's 3.12 needed 17 failures in a row. With the radios on mac80211 rebuilt
    with 3.12's average (002_fail_avg.yaml: cubic, every limit, 4 x 30 s, read beside the
    reduced sweep's stock runs), the curve should peak inside 5-9 with both ends below it, as
    the paper's does, and the peak should stand out of its runs' noise (a flat curve whose
    best mean lands in 5-9 by chance is not the paper's shape)."""
    from studies.p002_mesh_retry import mesh_fail_avg as F
    rs = run_file("002_fail_avg", outcome=P.no_path)
    for rec in rs.ok:
        assert rec["policies"]["mac80211"]["in_force"] == "fail-avg-3.12", rec["run_id"]
    beside = stored("002_retry_sweep_reduced")
    print("\n".join(F.section(rs.records + beside.records)))
    series = F.curves(rs.ok)[(hops, "fail-avg-3.12 (edited)")]
    regime = {**REGIME, "hops": hops, "tcp": "cubic", "mac80211": "fail-avg-3.12",
              "experiment": "002_fail_avg"}
    show(series, WHAT, "retry limit", regime)
    trends.assert_argmax_in(series, *P.PEAK_BAND, what=WHAT, x_name="retry limit", regime=regime)
    assert P.concave(series), "no interior peak with both ends below"
    assert P.peak_resolved(series), P.peak_resolution(series)


@pytest.mark.slow
@pytest.mark.parametrize("module", cases([m for m in P.MODULES if m != "cubic"], {
    "vegas": "reading: on 3.12's link-failure average every module peaks at 5 hops at R <= 7 "
             "with both ends below; ours: Vegas holds its own window at 5 segments, its curve "
             "is flat from R = 3 (4.62-4.72 Mbit/s), argmax R = 31 (002_fail_avg_modules)",
}))
def test_full_every_module_declines_at_5_hops_on_312s_average(module):
    """The reading under test, over the sweep's other modules: 002_fail_avg gave cubic at 5 hops
    the paper's decline beyond an early peak (R = 3) on mac80211 rebuilt with 3.12's
    link-failure average. If that decline is what 6.1's link breaking takes away, every module
    on the edited build (002_fail_avg_modules.yaml, 2 x 30 s, read beside the reduced sweep's
    stock runs) should peak at 5 hops at R <= 7 (the paper: declining after 5-7 retries) with
    both ends below the peak."""
    from studies.p002_mesh_retry import mesh_fail_avg as F
    from studies.p002_mesh_retry import mesh_fail_avg_modules as M
    rs = run_file("002_fail_avg_modules", outcome=P.no_path)
    for rec in rs.ok:
        assert rec["policies"]["mac80211"]["in_force"] == "fail-avg-3.12", rec["run_id"]
    print("\n".join(M.section(rs.records + stored("002_fail_avg").records
                              + stored("002_retry_sweep_reduced").records)))
    series = P.curves(rs.ok, 5).get(module)
    assert series, f"no runs of {module} at 5 hops"
    regime = {**REGIME, "hops": 5, "tcp": module, "mac80211": "fail-avg-3.12",
              "experiment": "002_fail_avg_modules"}
    show(series, WHAT, "retry limit", regime)
    trends.assert_argmax_in(series, 1, 7, what=WHAT, x_name="retry limit", regime=regime)
    assert P.concave(series), "no interior peak with both ends below"
    assert F.build_of(rs.ok[0]) != F.STOCK


@pytest.mark.slow
@pytest.mark.parametrize("snr", cases(("30.0", "35.0"), {
    "30.0": "paper: a peak at R = 5-9, both ends below; ours on 30 dB fading hops with 3.12's "
          "link-failure average: a rise to R = 31 (3.10-3.27 Mbit/s at R = 7-9, 3.69 at 31) "
          "(002_fail_avg_bursty)",
    "35.0": "paper: a peak at R = 5-9 out of the runs' noise; ours on 35 dB fading hops with "
          "3.12's link-failure average: a plateau R = 5-16, top R = 9 (4.21 Mbit/s) 1.2 % over "
          "R = 16 with runs 2.5 % apart, not resolved (002_fail_avg_bursty)",
}, values=(30.0, 35.0)))
def test_full_fades_with_linux_312s_average_bring_the_papers_shape(snr):
    """The reading under test: on the edited mac80211 the 5-hop peak sits at R = 3 because in
    one room only limits 1-3 drop frames; the paper's peak at 5-9 would need a channel that
    still drops frames there. On 002_bursty_hops's fading hops (30 and 35 dB, Rayleigh fades
    drifting at 160 ms, one series per frame), which do, with the radios on mac80211 with
    3.12's average (002_fail_avg_bursty.yaml, 4 x 30 s), the curve should peak inside 5-9 with
    both ends below it and the peak out of its runs' noise."""
    from studies.p002_mesh_retry import mesh_fail_avg as F
    rs = run_file("002_fail_avg_bursty", outcome=P.no_path)
    for rec in rs.ok:
        assert rec["policies"]["mac80211"]["in_force"] == "fail-avg-3.12", rec["run_id"]
    print("\n".join(F.bursty_section(rs.records, stored("002_bursty_hops").records)))
    series = F.bursty_curves(rs.ok).get((snr, "fail-avg-3.12 (edited)"))
    assert series, f"no runs on fading hops at {snr:g} dB"
    regime = {**REGIME, "hops": 5, "tcp": "cubic", "mac80211": "fail-avg-3.12",
              "hop SNR (dB)": snr, "fading": "Rayleigh, coherence 160 ms",
              "retry series": "single", "experiment": "002_fail_avg_bursty"}
    show(series, WHAT, "retry limit", regime)
    trends.assert_argmax_in(series, *P.PEAK_BAND, what=WHAT, x_name="retry limit", regime=regime)
    assert P.concave(series), "no interior peak with both ends below"
    assert P.peak_resolved(series), P.peak_resolution(series)


@pytest.mark.slow
def test_full_linux_312s_link_failure_average_frees_the_stalls():
    """The diagnosis under test: the stalls at 3 hops and R = 3 start with peer links that
    Linux 6.1 breaks on one frame dropped at the limit. With the radios on mac80211 rebuilt
    with 3.12's average (002_fail_avg_stall.yaml: cubic, veno, westwood, 4 x 100 s), fewer
    than a quarter of the runs should have timeouts that send nothing, where the sweep's same
    point and modules have more than half."""
    from studies.p002_mesh_retry import mesh_fail_avg as F
    edited = run_file("002_fail_avg_stall", outcome=P.no_path)
    for rec in edited.ok:
        assert rec["policies"]["mac80211"]["in_force"] == "fail-avg-3.12", rec["run_id"]
    sweep = stored("002_retry_sweep")      # the baseline: its stored passes (the file takes days)
    print("\n".join(F.stall_section(edited.ok, sweep.ok, "paper002_retry_sweep")))
    assert_stalls_freed(edited.ok, sweep.ok, "with 3.12's average")


@pytest.mark.slow
def test_full_a_small_window_carries_what_the_small_limit_did():
    """The mechanism under test: on the edited mac80211 the 5-hop chain carries more at R = 3
    than at larger limits because R = 3's drops keep the sender's window small (fewer frames
    queued and contending), not because of the limit. Then at R = 31, where nothing is dropped,
    the best of windows limited to 6-20 segments (002_fail_avg_window.yaml) must carry more
    than the unlimited window and at least 97 % of R = 3's mean."""
    from studies.p002_mesh_retry import mesh_fail_avg as F
    windowed = run_file("002_fail_avg_window", outcome=P.no_path)
    reading = stored("002_fail_avg")
    print("\n".join(F.window_section(windowed.ok, reading.ok)))
    curve = F.curves(reading.ok)[(5, "fail-avg-3.12 (edited)")]
    series = A.collect(windowed.ok, "policy.cwnd_clamp", lambda r: P.throughput_mbps(r))
    best = max(sum(v) / len(v) for v in series.values())
    r3, r31 = (sum(curve[x]) / len(curve[x]) for x in (3, 31))
    print(f"best limited window {best:.2f}, R = 3 {r3:.2f}, R = 31 unlimited {r31:.2f} Mbit/s")
    assert best > r31, "no limited window carries more than the unlimited one"
    assert best >= 0.97 * r3, "a small window does not carry what R = 3 did"
