"""Geometry effects: hidden terminals, spatial reuse, concurrency along a chain.

Propagation: two-ray ground at 2.4 GHz with 1.5 m antennas (crossover 226 m);
thresholds derived from stated ranges as in ns-2 studies: tx_range 250 m,
cs_range 450 m (interference/CS range about twice the 200 m hop spacing)."""
import pytest
from conftest import radios, rel_err

from harness.medium.analytic import single_sender_goodput_mbps

HEADER = ("seed 21\npropagation two_ray height 1.5\n"
          "defaults phy b txpower 15 tx_range 250 cs_range {cs}\n")


def hidden_run(sim, rate, rts: bool) -> dict:
    """A -- R -- C, 200 m hops: A and C (400 m apart) cannot sense each other
    with a 300 m carrier-sense range, both send saturated 1500 B frames to R."""
    conf = HEADER.format(cs=300) + radios([("A", 0, 0), ("R", 200, 0), ("C", 400, 0)])
    flag = " rts" if rts else ""
    return sim(conf, f"duration 10\nwarmup 0.5\nflow A R payload 1500 rate {rate}{flag}\n"
                     f"flow C R payload 1500 rate {rate}{flag}\n")


@pytest.mark.parametrize("rate", [1, 2, 5.5, 11])
def test_hidden_terminals_collapse_without_rts_and_recover_with_it(sim, rate):
    """Without RTS/CTS each DATA frame is exposed to the other sender for its
    whole duration: the longer the frame (lower rate), the deeper the collapse.
    With RTS/CTS only the short RTS is exposed and the CTS silences the other."""
    basic, rts = hidden_run(sim, rate, False), hidden_run(sim, rate, True)
    single = single_sender_goodput_mbps("b", rate, 1500)
    single_rts = single_sender_goodput_mbps("b", rate, 1500, rts=True)
    g_basic = sum(f["goodput_mbps"] for f in basic["flows"])
    g_rts = sum(f["goodput_mbps"] for f in rts["flows"])
    f_basic, f_rts = g_basic / single, g_rts / single_rts
    drops = sum(f["retry_drops"] for f in basic["flows"])
    msg = (f"hidden terminals, 802.11b {rate} Mbit/s, 1500 B: aggregate without RTS "
           f"{g_basic:.3f} Mbit/s = {f_basic:.1%} of one sender's {single:.3f} ({drops} retry drops); "
           f"with RTS/CTS {g_rts:.3f} Mbit/s = {f_rts:.1%} of one RTS sender's {single_rts:.3f}")
    print(msg)
    assert f_basic < (0.25 if rate <= 2 else 0.7), msg     # collapse
    assert f_rts > 0.85 and f_rts > f_basic + 0.25, msg    # recovery


def test_spatial_reuse_far_links_both_at_full_rate(sim):
    """Two links 5 km apart (far beyond the 450 m interference range)."""
    conf = HEADER.format(cs=450) + radios([("A", 0, 0), ("B", 200, 0),
                                           ("C", 5000, 0), ("D", 5200, 0)])
    out = sim(conf, "duration 10\nwarmup 0.5\nflow A B payload 1500 rate 11\n"
                    "flow C D payload 1500 rate 11\n")
    single = single_sender_goodput_mbps("b", 11, 1500)
    g = [f["goodput_mbps"] for f in out["flows"]]
    msg = (f"spatial reuse: link goodputs {g[0]:.4f} and {g[1]:.4f} Mbit/s, one isolated link "
           f"{single:.4f} Mbit/s (errors {rel_err(g[0], single):+.2%}, {rel_err(g[1], single):+.2%})")
    print(msg)
    assert all(abs(rel_err(x, single)) < 0.03 for x in g), msg


def test_chain_first_and_fourth_links_transmit_concurrently(sim):
    """5-node chain, 200 m spacing, CS range 450 m: nodes 0 and 3 are 600 m apart,
    so links 0->1 and 3->4 can be on air together, while 0->1 and 1->2 cannot."""
    conf = HEADER.format(cs=450) + radios([(f"n{i}", 200 * i, 0) for i in range(5)])
    out = sim(conf, "duration 10\nwarmup 0.5\n" +
              "".join(f"flow n{i} n{i + 1} payload 1500 rate 11\n" for i in range(4)))
    span = out["duration_s"] - out["warmup_s"]
    air = [f["data_airtime_s"] for f in out["flows"]]
    ov = {(i, j): s for i, j, s in out["overlap_s"]}
    g = [f["goodput_mbps"] for f in out["flows"]]
    # If links 1 and 4 were independent, they would overlap air1 * air4 / span.
    independent = air[0] * air[3] / span
    msg = (f"chain 0->1->2->3->4, all links saturated: goodputs {[round(x, 3) for x in g]} Mbit/s; "
           f"DATA airtime {[round(a, 3) for a in air]} s of {span:.1f} s; overlap 1st/4th link "
           f"{ov[(0, 3)]:.3f} s (independent links would give {independent:.3f} s), "
           f"1st/2nd {ov[(0, 1)]:.4f} s, combined 1st+4th {g[0] + g[3]:.3f} Mbit/s "
           f"vs one link alone {single_sender_goodput_mbps('b', 11, 1500):.3f}")
    print(msg)
    assert ov[(0, 3)] > 0.5 * independent and ov[(0, 3)] > 0.1 * min(air[0], air[3]), msg
    assert ov[(0, 1)] < 0.05 * min(air[0], air[1]), msg
    assert g[0] + g[3] > single_sender_goodput_mbps("b", 11, 1500), msg
