"""Study 004's report sections and page from stored records (synthetic records: the generation only)."""
from __future__ import annotations

import pytest

from harness.experiment.results import load_results
from harness.study import write_report
from harness.testing.records import chain_record as record
from harness.testing.records import store_records as store
from studies.p004_optimal_cwnd import paper as paper004


def test_paper004_sections(tmp_path):
    acks = [record(i, {"topology.hops": h, "policy.delayed_ack": d}, hops=h,
                   pps=(120.0 if d else 100.0) / h, delayed=d)
            for i, (h, d) in enumerate((h, d) for h in (1, 2, 3, 4, 5) for d in (True, False))]
    root = store(tmp_path / "acks", "paper004_ack_hops", acks)
    text = write_report(root).read_text()
    assert "paper004_throughput_vs_hops.png" in text
    rows = {r.claim.key: r for r in paper004.rows(load_results(root).records)}
    assert rows["004.da_gain_1"].ours == pytest.approx(20.0)
    assert rows["004.tda_13"].verdict.startswith("out of scope")
    sizes = [record(i, {"topology.hops": h, "policy.mss": m}, hops=h, mss=1000 if m == 1012 else 76,
                    pps=(130.0 if m == 88 else 100.0), extra_policy={"mss": m})
             for i, (h, m) in enumerate((h, m) for h in (6, 8) for m in (1012, 88))]
    root2 = store(tmp_path / "sizes", "paper004_packet_size", sizes)
    text2 = write_report(root2).read_text()
    assert "| 6 | 100 | 130 | 1.30 | 1.23 |" in text2
    flows = [record(i, {"flows[0].count": n}, hops=7, pps=100.0 / (1 + 0.2 * n), count=n,
                    delayed=True) for i, n in enumerate((1, 2, 6))]
    rows = {r.claim.key: r for r in paper004.rows(flows)}
    assert rows["004.flows"].verdict == "agrees"


def test_one_page_per_paper_takes_each_claim_from_the_experiment_that_measures_it(tmp_path):
    from harness.cli.report import cmd_report
    from harness.errors import HarnessError
    from harness.study.page import merged_rows
    acks = [record(i, {"topology.hops": h, "policy.delayed_ack": d}, hops=h,
                   pps=(120.0 if d else 100.0) / h, delayed=d)
            for i, (h, d) in enumerate((h, d) for h in (1, 2, 3) for d in (True, False))]
    sizes = [record(i, {"topology.hops": h, "policy.mss": m}, hops=h, mss=1000 if m == 1012 else 76,
                    pps=(130.0 if m == 88 else 100.0), extra_policy={"mss": m})
             for i, (h, m) in enumerate((h, m) for h in (6, 8) for m in (1012, 88))]
    a = store(tmp_path / "acks", "paper004_ack_hops", acks)
    s = store(tmp_path / "sizes", "paper004_packet_size", sizes)
    rows = {r.claim.key: r for r in merged_rows("004", [load_results(a), load_results(s)])}
    assert rows["004.da_gain_1"].ours == pytest.approx(20.0)
    assert "paper004_ack_hops" in rows["004.da_gain_1"].detail
    assert rows["004.t1_ratio_6"].ours == pytest.approx(1.3)
    assert "paper004_packet_size" in rows["004.t1_ratio_6"].detail
    assert rows["004.opt_7"].ours is None  # no optimal-window experiment given
    assert len(rows) == len(paper004.PAPER.claims)

    import argparse
    out = tmp_path / "paper004.md"
    assert cmd_report(argparse.Namespace(results=[str(a), str(s)], output=str(out),
                                         fmt="png")) == 0
    page = out.read_text()
    assert "| `paper004_ack_hops` | 6 / 6 / - | [report](acks/report.md) |" in page
    assert "Partly run" not in page
    assert "| 1.3 |" in page and (a / "report.md").exists()

    # an experiment of another study beside them
    other = store(tmp_path / "p1", "paper001_cwl_sweep",
                  [record(i, {"topology.hops": 1}, hops=1, pps=100.0) for i in range(3)])
    with pytest.raises(HarnessError, match="one paper"):
        cmd_report(argparse.Namespace(results=[str(a), str(other)], output=str(out), fmt="png"))
    assert not (other / "report.md").exists()  # nothing written for a refused request


