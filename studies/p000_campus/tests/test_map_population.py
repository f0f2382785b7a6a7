"""Paper 000's reading of claim 3 over the campus's own routes (studies.p000_campus.map_population):
the draw that chose the routes, the link table's counts, and the judgement on records."""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import yaml

from studies.p000_campus import map_analysis as M
from studies.p000_campus import map_population as P
from topologies import campus as C

from .test_report_000 import assert_read_as_a_reading, record

YAML = Path(__file__).resolve().parents[1] / "experiments" / "000_population.yaml"
QUOTED = {"5.5": 4.6, "11": 2.7}


def test_the_experiment_runs_exactly_the_drawn_routes():
    data = yaml.safe_load(YAML.read_text())
    listed = [(t["shadowing_seed"], t["path"]) for t in data["sweep"]["topology"]]
    campus = C.load_campus(C.DEFAULT_CAMPUS)
    drawn = [(s, r) for s in (1, 2, 3) for r in P.draw_routes(campus, s, batches=P.BATCHES)]
    assert listed == drawn
    assert data["sweep"]["topology.rate_loss"] == [None, {5.5: 4.6, 11: 2.7}]


def test_the_draw_takes_each_hop_count_from_the_etx_snapshot():
    campus = C.load_campus(C.DEFAULT_CAMPUS)
    paths = P.snapshot(campus, 2)
    routes = P.draw_routes(campus, 2, per_hop=2)
    assert [M.hops_of(r) for r in routes] == [1, 1, 2, 2, 3, 3, 4, 4]
    frozen = {P._name(p) for p in paths.values()}
    assert set(routes) <= frozen
    assert routes == P.draw_routes(campus, 2, per_hop=2)           # seeded: the same draw
    assert routes != P.draw_routes(campus, 2, per_hop=2, draw_seed=1)
    grown = P.draw_routes(campus, 2, per_hop=2, batches=2)     # a batch more keeps the first
    assert grown[:len(routes)] == routes and len(set(grown)) == 2 * len(routes)
    three = P.routes_by_hops(paths, 3)
    assert len(three) == len(set(three)) and all(M.hops_of(r) == 3 for r in three)


def test_worse_receivers_never_leave_fewer_weak_routes():
    counts = P.route_counts(seeds=(1,))
    for h, probe in ((3, False), (4, False), (3, True), (4, True)):
        medium = next(c for c in counts if (c.hops, c.probe) == (h, probe) and not c.quoted)
        quoted = next(c for c in counts if (c.hops, c.probe) == (h, probe) and c.quoted)
        assert medium.routes == quoted.routes > 0
        assert quoted.near_stall >= medium.near_stall
        assert quoted.below_half >= medium.below_half
        assert quoted.near_stall <= quoted.below_half <= quoted.routes


#: (layout, quoted receivers) -> kbit/s per hop count; a route listed as 0 carried nothing
KBPS = {(1, False): {1: [2000, 2200], 2: [1500, 1300], 3: [1000, 900], 4: [800, 700]},
        (1, True): {1: [1800, 1600], 2: [700, 600], 3: [0, 200], 4: [0, 300]},
        (2, False): {1: [2100, 2000], 2: [1400, 1200], 3: [1100, 800], 4: [700, 900]},
        (2, True): {1: [1700, 1500], 2: [600, 500], 3: [250, 0], 4: [5, 350]}}


def population_records() -> List[Dict[str, Any]]:
    out: List[Dict[str, Any]] = []
    for (seed, quoted), per_hop in KBPS.items():
        for h, vals in per_hop.items():
            for n, kbps in enumerate(vals):
                path = "-".join(str(10 + n * 10 + i) for i in range(h + 1))
                for rts in M.RTS:
                    rec = record(len(out), path, 5.5, rts, None, kbps * (0.8 if rts else 1.0),
                                 30.0, seed)
                    if quoted:
                        rec["params"]["topology"]["rate_loss"] = dict(QUOTED)
                    if kbps == 0:
                        rec.update(status="failed", flows=[], error="warm_arp: r10 got no answer "
                                   "from r13 (10.0.0.13) in 3 pings: the path is broken before "
                                   "any flow")
                    out.append(rec)
    return out


def test_claim_3_is_judged_per_layout_and_receiver_with_dead_routes_as_zero():
    recs = population_records()
    lost = next(r for r in recs if r["params"]["topology"]["path"] == "10-11"
                and r["params"]["topology"].get("rate_loss"))
    lost.update(status="failed", flows=[], error="iperf3 failed: whatever")  # left out
    judged = {(j.seed, j.quoted): j for j in P.judge(recs)}
    assert sorted(judged) == sorted(KBPS)
    q1 = judged[(1, True)]
    assert q1.mean[(False, 3)] == 100.0 and q1.carried[(False, 3)] == 200.0
    assert q1.zero[3] == (1, 2) and q1.zero[1] == (0, 1)            # the lost run is left out
    assert q1.steep is True and q1.map_slow is True
    assert judged[(1, False)].steep is False and judged[(1, False)].map_slow is False
    assert judged[(2, True)].zero[4] == (1, 2)                       # 5 kbit/s is "zero"
    text = "\n".join(P.section_lines(recs))
    assert "**Verdict:** the fall to 3 and 4 hops (under a quarter of 1 hop) is what the " \
        "routes a campus's routing gives show with receivers at the quoted SNRs (on layouts " \
        "1, 2; with the medium's on no layout)" in text
    assert "The 2-hop part (under half of 1 hop) holds with the quoted receivers on layouts " \
        "1, 2, with the medium's on no layout: 2 hops carry 0.34-0.67 of 1 hop. " in text
    assert "with the quoted receivers on layouts 1, 2, with the medium's on no layout " \
        "(3 hops with the quoted receivers: 200-250 kbit/s, the better of RTS/CTS off and " \
        "on). A small sample" in text
    assert "| seed 1 | quoted | 1600 / 1360 (1600 / 1360; 0 of 1 zero) | 650 / 520 (650 / " \
        "520; 0 of 2 zero) | 100 / 80 (200 / 160; 1 of 2 zero) | 150 / 120 (300 / 240; 1 of " \
        "2 zero) | 0.41, 0.38: yes / yes; MAP-slow |" in text
    one = P.Judged(3, True, {(False, 1): 1000.0, (True, 1): 900.0, (False, 2): 450.0,
                             (True, 2): 520.0, (False, 3): 200.0, (True, 3): 150.0,
                             (False, 4): 100.0, (True, 4): 300.0}, {}, {})
    assert one.half_at_2 is False and one.quarter_beyond is True and one.steep is False
    assert "Claim 5 on the same routes, RTS/CTS on over off at 3 / 4 hops: seed 1, medium's: " \
        "-20 % / -20 %;" in text
    assert "helps at both on fewer than two layouts with either receiver." in text


def test_the_page_and_the_report_read_it_as_a_reading(tmp_path):
    page = assert_read_as_a_reading(tmp_path, "paper000_population", population_records(),
                                    "The campus's own routes (claim 3)")
    assert "| seed 1 | medium's | 0 / 0 of " in page                 # the link table's counts


def test_claim_12_over_the_routes_needs_the_median_route_to_fail_on_two_layouts():
    counts = P.eleven_counts(seeds=(1,))
    assert sorted({c.hops for c in counts}) == [2, 3, 4]
    for h in (2, 3, 4):
        medium, quoted = (next(c for c in counts if c.hops == h and c.quoted == q)
                          for q in (False, True))
        assert medium.routes == quoted.routes > 0
        assert 0 <= medium.failing <= medium.routes and 0 <= quoted.failing <= quoted.routes
    made = [P.ElevenCount(s, q, h, 10, f) for s, q, h, f in
            [(1, True, 2, 6), (1, True, 3, 5), (2, True, 2, 7), (2, True, 3, 4),
             (3, True, 2, 2), (3, True, 3, 2), (1, False, 2, 1), (1, False, 3, 9)]]
    text = "\n".join(P.eleven_lines(made))
    assert "| seed 1 | quoted | 6 of 10 | 5 of 10 | 11 of 20 |" in text
    assert "| seed 1 | medium's | 1 of 10 | 9 of 10 | 10 of 20 |" in text   # half: not more
    assert "**Claim 12:** claim 12 holds over the layouts' own routes with the quoted " \
        "receivers." in text
    assert "not explained" in "\n".join(P.eleven_lines(made[4:]))
    assert P.eleven_lines([]) == []
