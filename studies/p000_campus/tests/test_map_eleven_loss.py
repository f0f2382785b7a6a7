"""Paper 000's claim-12 reading (studies/p000_campus/map_eleven_loss.py): receivers worse at
11 Mbit/s alone on the medium's link table, the threshold the run uses, and the verdict's
logic on hand-made layouts."""
from __future__ import annotations

from studies.p000_campus import map_eleven_loss as EL
from topologies import campus as C


def lay(seed, loss, failing, broken=()):
    return EL.Layout(seed, loss, tuple(f"p{i}" for i in range(failing)), tuple(broken))


def test_a_loss_at_11_alone_fails_more_paths_and_keeps_the_2_mbits_fact():
    place = C.load_campus()
    ideal, worse = EL.layout(place, 1, 0.0), EL.layout(place, 1, EL.RUN_LOSS)
    assert set(ideal.failing) <= set(worse.failing)
    assert len(worse.failing) > len(ideal.failing)
    assert "all 18 path links decode at 2 Mbit/s" not in worse.broken


def test_the_threshold_is_the_smallest_loss_holding_on_every_layout():
    found = [lay(1, 0.0, 3), lay(2, 0.0, 3),
             lay(1, 1.0, 6), lay(2, 1.0, 5),          # seed 2: 5 of 10 is not the median
             lay(1, 2.0, 6), lay(2, 2.0, 6),
             lay(1, 3.0, 6, ["5-28 can hold 11 Mbit/s"]), lay(2, 3.0, 7)]
    assert EL.threshold(found) == 2.0
    assert EL.holding(found, 1) == [1.0, 2.0] and EL.holding(found, 2) == [2.0, 3.0]
    assert EL.threshold([lay(1, 0.0, 3), lay(1, 1.0, 6, ["x"])]) is None
    assert EL.verdict([lay(1, 0.0, 3)], []).startswith("**Verdict:** not explained")


def test_the_table_names_broken_facts():
    lines = EL.table_lines([lay(1, 0.0, 3), lay(1, 6.0, 6, ["5-28 can hold 11 Mbit/s"])])
    assert "| 0 | 3 of 10 fail at 11; facts hold |" in lines
    assert "| 6 | 6 of 10 fail at 11; broken: 5-28 can hold 11 Mbit/s |" in lines


def test_the_run_is_at_the_tables_threshold():
    assert EL.threshold(EL.sweep()) == EL.RUN_LOSS


def rec(path, rate, kbps, seed=1):
    return {"status": "ok", "flows": [{"throughput_bps": kbps * 1e3}],
            "params": {"topology": {"path": path, "rate": rate, "shadowing_seed": seed}}}


def test_the_run_keeps_the_link_facts_only_where_23_1_and_5_28_gain_at_11():
    kept = [rec("23-1", 5.5, 3300), rec("23-1", 11, 5100),
            rec("5-28", 5.5, 3300), rec("5-28", 11, 4400)]
    assert EL.facts_in_run(kept, 1) is True
    lost = kept[:3] + [rec("5-28", 11, 2700)]
    assert EL.facts_in_run(lost, 1) is False
    assert EL.facts_in_run(kept[:2], 1) is None        # 5-28 not measured


def test_claim_11s_pattern_needs_auto_behind_at_3_hops_alone():
    assert EL.claim_11({1: (5, 3), 2: (2, 1), 3: (0.8, 0.9), 4: (0.7, 0.6)}) is True
    assert EL.claim_11({1: (5, 3), 2: (2, 1), 3: (0.8, 0.9), 4: (0.5, 0.6)}) is False
    assert EL.claim_11({1: (5, 3), 2: (2, 1), 3: (0.8, 0.9)}) is None


def test_auto_is_set_beside_5_5_per_hop_count_and_a_broken_path_counts_as_zero():
    broken = {"status": "failed", "flows": [],
              "error": "warm_arp: r1 got no answer: the path is broken before any flow",
              "params": {"topology": {"path": "1-23-16", "rate": "auto", "shadowing_seed": 2}}}
    auto = [rec("22-13", "auto", 5000, 2), rec("23-1", "auto", 4000, 2), broken]
    fixed = [rec("22-13", 5.5, 3000, 2), rec("23-1", 5.5, 3000, 2), rec("1-23-16", 5.5, 600, 2)]
    by = EL.auto_by_hops(auto, fixed)
    assert by == {2: {1: (4500.0, 3000.0), 2: (0.0, 600.0)}}
    lines = EL.auto_lines(auto, fixed + [rec("22-13", 11, 4500, 2)])
    assert "| 22-13 | 1 | 1.67, 1.50 |" in lines


def test_auto_alone_points_to_the_runs_it_is_read_against():
    lines = EL.auto_lines([rec("22-13", "auto", 5000)], [])
    assert lines[0].startswith("The 5.5 and 11 Mbit/s runs") and len(lines) == 2
