"""Study 001's report sections and page from stored records (synthetic records: the generation only)."""
from __future__ import annotations

import json
from typing import Any, Dict, List

import pytest

from harness.experiment.results import load_results
from harness.study import study_section as section
from harness.study import write_report
from harness.testing.records import chain_record as record
from harness.testing.records import store_records as store
from harness.testing.records import with_links
from studies.p001_cwl import paper as paper001


def cwl_records() -> List[Dict[str, Any]]:
    """Peaks at limit ceil(0.4 h) with quickack, one higher with delayed ACK."""
    recs, i = [], 0
    for delayed in (False, True):
        for h in (1, 2, 4, 7, 15):
            peak = max(1, round(0.4 * h)) + (1 if delayed else 0)
            for clamp in [1, 2, 3, 4, 5, 6, 8, None]:
                x = 10 if clamp is None else clamp
                pps = 100.0 / h if h <= 2 and clamp != 1 else 100.0 / h * (1 - 0.05 * abs(x - peak))
                recs.append(record(i, {"topology.hops": h, "policy.cwnd_clamp": clamp,
                                       "policy.delayed_ack": delayed},
                                   hops=h, pps=pps, clamp=clamp, delayed=delayed))
                i += 1
    return recs


def test_paper001_rows_read_the_sweep():
    rows = {r.claim.key: r for r in paper001.rows(cwl_records())}
    assert rows["001.best_cwl_15"].ours == 6 and rows["001.best_cwl_15"].verdict == "agrees"
    assert rows["001.flat_1_2"].verdict == "agrees"
    assert rows["001.gain"].verdict == "see the mobile experiment"  # E9: paper001.mobile_rows
    assert paper001.achievable(cwl_records(), False)[7] == 3


def test_cwl_report_has_figures_claims_and_both_regimes(tmp_path):
    root = store(tmp_path / "res", "paper001_cwl_sweep", cwl_records())
    out = write_report(root)
    text = out.read_text()
    assert "best window limit (achievable BDP), 15-hop chain | 5 packets" in text
    assert "### Regimes side by side" in text and "Linux delayed ACK" in text
    figs = out.parent / "report-figures"
    assert (figs / "paper001_packets_vs_limit.png").stat().st_size > 1000
    assert (figs / "paper001_achievable_vs_rthc.png").stat().st_size > 1000
    assert (figs / "paper001_relative_vs_limit.png").stat().st_size > 1000
    assert paper001.OUT_OF_SCOPE in text


def test_paper001_page_sets_the_adaptive_runs_beside_the_best_fixed_limit(tmp_path):
    from harness.study.page import render
    sweep = store(tmp_path / "sweep", "paper001_cwl_sweep", cwl_records())
    adaptive = [record(900 + i, {"topology.hops": h}, hops=h, pps=pps,
                       extra_policy={"adaptive_window": True})
                for i, (h, pps) in enumerate([(1, 99.0), (1, 97.0), (7, 11.0), (9, 9.0)])]
    ad = store(tmp_path / "adaptive", "paper001_adaptive", adaptive)
    sets = [load_results(sweep), load_results(ad)]
    rows = paper001.adaptive_vs_best(sets[1].ok, sets[0].ok)
    # the sweep's best at 1 hop is 100 pkts/s (every limit; the first wins), at 7 hops 100/7
    assert [(h, best) for h, _ad, best, _bm in rows] == [(1, 1), (7, 3), (9, None)]
    assert rows[0][1] == pytest.approx(98.0) and rows[1][3] == pytest.approx(100 / 7)
    plan = {"runs": [{"run_id": f"p{i}"} for i in range(len(cwl_records()) + 5)]}
    (sweep / "plan.json").write_text(json.dumps(plan))
    page = render("001", sets, tmp_path / "paper001.md")
    n = len(cwl_records())
    assert f"| `paper001_cwl_sweep` | {n} / {n} / {n + 5} |" in page
    assert f"**Partly run:** `paper001_cwl_sweep` ({n} of {n + 5})" in page
    # 98/100 is within 10 %, 11/14.3 is not; 9 hops is not in the sweep
    assert "Within 10 % (ratio >= 0.90): 1 of 2 hop counts" in page
    # the sweep's run at the table limit (3 at 7 hops) is its best: 100/7
    assert "| 7 | 14 | 3 | 11 | 14.29 | 3 | 14.29 | 0.77 |" in page
    assert "| 9 | 18 | 3 | 9 | - | - | - | - |" in page
    assert "different code revisions" not in page  # both synthetic sets carry none
    assert "adaptive limit against" not in render("001", sets[:1], tmp_path / "p.md")


def test_paper001_page_warns_when_the_adaptive_runs_and_the_sweep_differ_in_code(tmp_path):
    from harness.study.page import render
    sweep_recs = cwl_records()
    for rec in sweep_recs:
        rec["environment"]["code_revision"] = "bbb"
    adaptive = [record(900, {"topology.hops": 7}, hops=7, pps=11.0,
                       extra_policy={"adaptive_window": True})]
    adaptive[0]["environment"]["code_revision"] = "aaa"
    sets = [load_results(store(tmp_path / "s", "paper001_cwl_sweep", sweep_recs)),
            load_results(store(tmp_path / "a", "paper001_adaptive", adaptive))]
    assert paper001.revisions(sets[0].ok) == ["bbb"]
    page = render("001", sets, tmp_path / "paper001.md")
    assert "different code revisions (aaa against bbb)" in page


def side_records() -> List[Dict[str, Any]]:
    """10 hops: adaptive 9 and 11 pkts/s beside fixed limits 2 (8), 3 (12, 10); 12 hops: no
    adaptive run yet."""
    out = []
    for i, (h, clamp, ad, pps) in enumerate([(10, None, True, 9.0), (10, None, True, 11.0),
                                             (10, 2, False, 8.0), (10, 3, False, 12.0),
                                             (10, 3, False, 10.0), (12, 2, False, 7.0)]):
        out.append(record(950 + i, {"topology.hops": h, "policy": {}}, hops=h, pps=pps,
                          clamp=clamp, extra_policy={"adaptive_window": True} if ad else None))
    return out


def test_paper001_side_by_side_judges_adaptive_against_the_same_session(tmp_path):
    from harness.study.page import render
    side = load_results(store(tmp_path / "side", "paper001_adaptive_vs_fixed", side_records()))
    data = paper001.side_by_side(side.ok)
    assert data == {10: {"adaptive": [9.0, 11.0], 2: [8.0], 3: [12.0, 10.0]}, 12: {2: [7.0]}}
    assert paper001.side_ratio(data[10]) == (3, pytest.approx(10.0 / 11.0))
    assert paper001.side_ratio(data[12]) == (2, None)
    rows = paper001.side_rows(side.ok)
    assert rows[0] == "| hops | RTHC | table limit | adaptive | limit 2 | limit 3 | best fixed | adaptive / best |"
    assert "| 10 | 20 | 3 | 10 | 8 | 11 | 3 | 0.91 |" in rows
    assert "| 12 | 24 | 4 | - | 7 | - | 2 | - |" in rows
    # alone on the paper page (no sweep) and beside the sweep + the adaptive experiment
    page = render("001", [side], tmp_path / "paper001.md")
    assert "Within 10 % (ratio >= 0.90): 1 of 1 hop counts." in page
    sweep = load_results(store(tmp_path / "sweep", "paper001_cwl_sweep", cwl_records()))
    adaptive = load_results(store(tmp_path / "ad", "paper001_adaptive", [record(
        900, {"topology.hops": 7}, hops=7, pps=11.0, extra_policy={"adaptive_window": True})]))
    page = render("001", [sweep, adaptive, side], tmp_path / "paper001.md")
    assert "| 7 | 14 | 3 | 11 |" in page  # the adaptive experiment, not the side-by-side one
    # its own report shows the same table
    text = section(side, tmp_path / "side" / "report.md")
    assert "| 10 | 20 | 3 | 10 | 8 | 11 | 3 | 0.91 |" in text


def test_paper001_page_shows_what_the_medium_saw_at_each_limit(tmp_path):
    from harness.study.page import render
    recs = []
    for rec in cwl_records():
        clamp = rec["params"]["policy"]["cwnd_clamp"]
        x = 10 if clamp is None else clamp
        recs.append(with_links(rec, 1000, 1000 - 30 * x, 2 * x))  # more window, more losses
    sweep = store(tmp_path / "sweep", "paper001_cwl_sweep", recs)
    page = render("001", [load_results(sweep)], tmp_path / "paper001.md")
    # the limits the sweep ran among 1, 2, 3, 4, 6, 10, 20, none; hop counts from 3 on
    assert "| hops | limit 1 | limit 2 | limit 3 | limit 4 | limit 6 | limit none |" in page
    table = page.split("| hops | limit 1 |")[1]
    assert "\n| 1 |" not in table and "\n| 4 | " in table and "\n| 15 | " in table
    # 4 hops, limit 2 (the synthetic peak): 25 pkts/s, 940 of 1000 attempts, 4 drops
    assert "| 4 | 23.8 · 97% · 2 | 25.0 · 94% · 4 |" in page
    assert "· 70% · 20 |" in page  # no limit (x = 10)


def test_paper001_page_no_revision_warning_when_the_adaptive_revision_is_among_the_sweeps(tmp_path):
    """A sweep whose few re-run records carry a later revision still shares the adaptive runs'
    revision: no warning then."""
    from harness.study.page import render
    sweep_recs = cwl_records()
    for i, rec in enumerate(sweep_recs):
        rec["environment"]["code_revision"] = "aaa" if i else "ccc"
    adaptive = [record(900, {"topology.hops": 7}, hops=7, pps=11.0,
                       extra_policy={"adaptive_window": True})]
    adaptive[0]["environment"]["code_revision"] = "aaa"
    sets = [load_results(store(tmp_path / "s", "paper001_cwl_sweep", sweep_recs)),
            load_results(store(tmp_path / "a", "paper001_adaptive", adaptive))]
    assert "different code revisions" not in render("001", sets, tmp_path / "paper001.md")
