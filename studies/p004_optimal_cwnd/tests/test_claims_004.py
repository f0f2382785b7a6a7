"""Paper 004 (Chen, Marsic, Miller) on the emulator: 802.11b 11 Mbit/s data, 1 Mbit/s basic
rate, RTS/CTS, 200 m spacing, 250 m transmission, 550 m interference, capture 10 dB, queue 50
(geometry ns2-004), NewReno (Linux reno, SACK off), flows first -> last.

Claims (papers.md 004.4, catalogue E8, E18-E20):
- Linux's delayed ACK (TCP-DA) beats one ACK per segment (regular TCP) at every hop count;
- throughput per flow falls as flows are added;
- 76-byte-payload packets raise the packet rate by far less than their size ratio
  (asserted: ratio below a third of the size ratio);
- 7 hops: the best window limit lies in [n/3, n/2] (+-1) (slow).
"""
from __future__ import annotations

import pytest

from harness.analysis import records as A
from harness.analysis import trends
from harness.testing.study_runs import cases, not_reproduced, run_file, show
from studies.p004_optimal_cwnd import paper as paper004

pytestmark = [pytest.mark.emulation, pytest.mark.paper]

REGIME = {"paper": "004", "phy": "802.11b 11 Mbit/s, basic 1", "rts": "on",
          "geometry": "ns2-004", "tcp": "reno, SACK off"}
#: IP bytes of the large (1000-byte payload) and small (76-byte payload) packets.
IP_LARGE, IP_SMALL = 1000 + 52, 76 + 52


def check_delayed_ack_wins(records) -> None:
    lines = paper004.ack_lines(records)
    da, tcp = list(lines.values())
    for hops in sorted(set(da) & set(tcp)):
        groups = {"TCP-DA (delayed ACK)": da[hops], "regular TCP (quickack)": tcp[hops]}
        show(groups, "goodput (kbit/s)", "ACK scheme", {**REGIME, "hops": hops})
        trends.assert_ordering(groups, strict=True, what="goodput (kbit/s)", x_name="ACK scheme",
                               regime={**REGIME, "hops": hops})
    assert set(da) == set(tcp) and da, f"hop counts differ: {list(da)} vs {list(tcp)}"


def check_per_flow_falls(records) -> None:
    lines = paper004.flows_per_flow(records)
    assert lines, "no ACK scheme with two flow counts: nothing to compare"
    for delayed, s in lines.items():
        regime = {**REGIME, "acks": "delayed" if delayed else "quickack"}
        show(s, "goodput per flow (kbit/s)", "flows", regime)
        trends.assert_decreasing(s, strict=True, what="goodput per flow (kbit/s)",
                                 x_name="flows", regime=regime)


def check_small_packets(records) -> None:
    table = paper004.packet_size_table(records)
    assert table, "no packet-size runs"
    for hops, by in sorted(table.items()):
        s = {1012: [by[1012]], 88: [by[88]]}
        show(s, "packets/s", "advertised MSS", {**REGIME, "hops": hops, "acks": "quickack"})
        ratio = by[88] / by[1012]
        limit = (IP_LARGE / IP_SMALL) / 3
        print(f"packet-rate ratio {ratio:.2f} (paper Table 1: 1.14-1.53), size ratio "
              f"{IP_LARGE / IP_SMALL:.1f}, asserted < {limit:.1f}")
        assert ratio < limit, f"{hops} hops: small packets raise the packet rate {ratio:.2f}x"


def check_small_segments_were_small(records) -> None:
    small = [rec for rec in records
             if rec.get("status") == "ok" and rec["params"]["policy"].get("mss") == 88]
    assert small, "no finished run with MSS 88: the small segments were not checked"
    for rec in small:
        got = rec["flows"][0]["checks"]["mss"]["payload_bytes"]
        print(f"MSS 88 run used payloads {got}")
        assert max(got) <= 76


# -- quick (CI) ---------------------------------------------------------------------------------
def test_delayed_ack_beats_ack_per_segment_at_1_and_3_hops(tmp_path):
    check_delayed_ack_wins(run_file("004_ack_hops_quick", tmp_path / "acks").records)


def test_per_flow_throughput_falls_from_one_to_two_flows(tmp_path):
    check_per_flow_falls(run_file("004_flows_quick", tmp_path / "flows").records)


def test_small_packets_raise_the_packet_rate_far_less_than_their_size(tmp_path):
    rs = run_file("004_packet_size_quick", tmp_path / "size")
    check_small_segments_were_small(rs.records)
    check_small_packets(rs.records)


# -- slow (full files) ----------------------------------------------------------------------------
@pytest.mark.slow
def test_quick_optimal_window_runs(tmp_path):
    rs = run_file("004_optimal_window_quick", tmp_path / "opt")
    s = A.collect(rs.records, "policy.cwnd_clamp", A.throughput_kbps)
    show(s, "goodput (kbit/s)", "window limit", {**REGIME, "hops": 7})
    assert len(s) == 4


@pytest.mark.slow
@pytest.mark.parametrize("hops", cases(("7", "10"), {
    "7": "paper: the best window limit at 7 hops lies in n/3..n/2 (3); ours: goodput creeps up "
         "to the largest limits, best 10 (632 kbit/s; limit 3: 539), no loss beyond n/2 "
         "(004_optimal_window)",
    "10": "paper: the best window limit at 10 hops lies in n/3..n/2 (3-4); ours: goodput creeps "
          "up to the largest limits, best 12 (511 kbit/s; limit 4: 439), no loss beyond n/2 "
          "(004_optimal_window)",
}, values=(7, 10)))
def test_full_best_window_in_n_over_3_to_n_over_2(hops):
    rs = run_file("004_optimal_window")
    s = A.collect(rs.records, "policy.cwnd_clamp", A.throughput_kbps,
                  where={"topology.hops": hops, "policy.delayed_ack": False})
    limited = {x: v for x, v in s.items() if x is not None}
    show(s, "goodput (kbit/s)", "window limit", {**REGIME, "hops": hops, "acks": "quickack"})
    trends.assert_argmax_in(limited, hops / 3 - 1, hops / 2 + 1, what="goodput (kbit/s)",
                            x_name="window limit", regime={**REGIME, "hops": hops})


@pytest.mark.slow
@not_reproduced("paper: TCP-DA beats one ACK per segment at every hop count; ours: ahead at 12 "
                "of 15 (+12 % on average), behind at 9 (-4.2 %), 10 (-14.3 %) and 15 hops "
                "(-5.4 %), inside the 3 runs' 95 % intervals (004_ack_hops)")
def test_full_delayed_ack_beats_ack_per_segment_at_every_hop_count():
    check_delayed_ack_wins(run_file("004_ack_hops").records)


@pytest.mark.slow
def test_full_per_flow_throughput_falls_with_flows():
    check_per_flow_falls(run_file("004_flows").records)


@pytest.mark.slow
def test_full_small_packets():
    rs = run_file("004_packet_size")
    check_small_segments_were_small(rs.records)
    check_small_packets(rs.records)
