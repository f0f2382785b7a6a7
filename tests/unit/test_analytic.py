"""Unit tests of harness.medium.analytic: airtime from the standard's PPDU formats,
control-rate selection, single-sender and Bianchi models."""
import math

import pytest

from harness.medium import analytic as an


@pytest.mark.parametrize("phy,rate,length,short,expected", [
    ("b", 1, 14, False, 192 + 112),        # ACK at 1 Mbit/s: 304 us
    ("b", 2, 14, False, 192 + 56),
    ("b", 2, 14, True, 96 + 56),
    ("b", 1, 14, True, 192 + 112),         # no short preamble at 1 Mbit/s
    ("b", 11, 1536, False, 192 + 1118),    # ceil(12288 / 11)
    ("b", 5.5, 1536, True, 96 + 2235),     # ceil(12288 / 5.5)
    ("a", 6, 14, False, 20 + 4 * 6),       # (16 + 112 + 6) / 24 -> 6 symbols
    ("a", 54, 1536, False, 20 + 4 * 57),   # (16 + 12288 + 6) / 216 -> 57 symbols
    ("g", 54, 1536, False, 20 + 4 * 57 + 6),   # ERP signal extension
])
def test_airtime(phy, rate, length, short, expected):
    assert an.airtime_us(phy, rate, length, short) == expected


def test_airtime_rejects_rate_of_other_phy():
    with pytest.raises(ValueError):
        an.airtime_us("b", 54, 100)


def test_timing_per_phy():
    assert an.timing("b") == an.Timing(20, 10, 50, 364, 31, 1023)
    assert an.timing("a") == an.Timing(9, 16, 34, 94, 15, 1023)
    assert an.timing("g", short_slot=True) == an.Timing(9, 10, 28, 342, 15, 1023)
    assert an.timing("g", short_slot=False).slot == 20


@pytest.mark.parametrize("phy,data,basic,expected", [
    ("b", 11, [1, 2], 2), ("b", 1, [1, 2], 1), ("b", 5.5, [1, 2, 5.5, 11], 5.5),
    ("g", 54, None, 24), ("g", 9, None, 6), ("g", 11, None, 11),
    ("g", 54, [1, 2], 24),        # no OFDM basic rate: highest mandatory OFDM rate
    ("a", 36, [6], 6),
])
def test_control_rate(phy, data, basic, expected):
    assert an.control_rate(phy, data, basic) == expected


def test_single_sender_formula():
    # 802.11b 11 Mbit/s: DIFS 50 + 15.5*20 + DATA 1310 + SIFS 10 + ACK(2 Mbit/s) 248 = 1928 us
    assert an.single_sender_goodput_mbps("b", 11, 1500) == pytest.approx(12000 / 1928)
    rts = an.single_sender_goodput_mbps("b", 11, 1500, rts=True)
    # + RTS (192 + 80) + SIFS + CTS 248 + SIFS
    assert rts == pytest.approx(12000 / (1928 + 272 + 10 + 248 + 10))


def test_bianchi_fixed_point_satisfies_both_equations():
    for n in (2, 5, 20, 50):
        tau, p = an.bianchi_tau(n, 32, 5)
        rhs = 2 * (1 - 2 * p) / ((1 - 2 * p) * 33 + p * 32 * (1 - (2 * p) ** 5))
        assert tau == pytest.approx(rhs, rel=1e-9)
        assert p == pytest.approx(1 - (1 - tau) ** (n - 1))


def test_bianchi_single_station_is_the_single_sender_model():
    for phy, rate in (("b", 11), ("a", 54), ("g", 6)):
        assert an.bianchi_goodput_mbps(1, phy, rate) == pytest.approx(
            an.single_sender_goodput_mbps(phy, rate))


def test_bianchi_trends():
    tau = [an.bianchi_tau(n, 32, 5)[0] for n in (2, 5, 10, 20, 50)]
    assert tau == sorted(tau, reverse=True)
    basic = [an.bianchi_goodput_mbps(n, "b", 11) for n in (5, 10, 20, 50)]
    assert basic == sorted(basic, reverse=True)
    # RTS/CTS is far less sensitive to n than basic access with long frames
    rts = [an.bianchi_goodput_mbps(n, "b", 11, rts=True) for n in (5, 50)]
    assert (rts[0] - rts[1]) / rts[0] < (basic[0] - basic[-1]) / basic[0]


def test_delivered_fraction():
    assert an.delivered_fraction(0.5, 4) == pytest.approx(1 - 1 / 16)
    assert an.delivered_fraction(0.0, 1) == 1
    assert math.isclose(an.delivered_fraction(1.0, 7), 0)


def test_tcp_goodput_adds_ack_exchanges():
    data_only = an.single_sender_goodput_mbps("b", 11, 1500) * 1448 / 1500 * (1500 + 36) / (1500 + 36)
    t_data = 8 * 1500 / an.single_sender_goodput_mbps("b", 11, 1500)       # 1500 B IP packet
    t_ack = 8 * 52 / an.single_sender_goodput_mbps("b", 11, 52)
    assert an.tcp_goodput_mbps("b", 11) == pytest.approx(8 * 1448 / (t_data + t_ack / 2))
    assert an.tcp_goodput_mbps("b", 11, ack_every=1) < an.tcp_goodput_mbps("b", 11) < data_only


def test_tcp_goodput_with_the_acks_bare_lies_between_no_rts_and_rts_on_every_frame():
    # an RTS threshold between the two lengths: the segments behind RTS/CTS, the TCP ACKs bare
    t_data = 8 * 1500 / an.single_sender_goodput_mbps("b", 5.5, 1500, rts=True)
    t_ack = 8 * 52 / an.single_sender_goodput_mbps("b", 5.5, 52)
    bare = an.tcp_goodput_mbps("b", 5.5, rts=True, ack_rts=False)
    assert bare == pytest.approx(8 * 1448 / (t_data + t_ack / 2))
    assert an.tcp_goodput_mbps("b", 5.5, rts=True) < bare < an.tcp_goodput_mbps("b", 5.5)
    assert an.tcp_goodput_mbps("b", 5.5, rts=True, ack_rts=None) == an.tcp_goodput_mbps(
        "b", 5.5, rts=True)


def test_lossy_link_model_limits():
    for phy, rate in (("b", 11), ("g", 54)):
        assert an.lossy_link_goodput_mbps(phy, rate, 1500, 0.0, 7) == pytest.approx(
            an.single_sender_goodput_mbps(phy, rate, 1500))
    # one attempt: every frame waits CW0, half the frames pay F instead of DIFS
    tm, ex = an.timing("b"), an.exchange("b", 2, 1000)
    e = 0.5 * tm.difs + 0.5 * tm.eifs + tm.cw_min / 2 * tm.slot + ex.t_data + 0.5 * (tm.sifs + ex.t_ack)
    assert an.lossy_link_goodput_mbps("b", 2, 1000, 0.5, 1) == pytest.approx(8000 * 0.5 / e)
    assert an.ack_timeout_us("b", 11) == 10 + 20 + 192
    assert an.ack_timeout_us("a", 54) == 16 + 9 + 25
    with pytest.raises(ValueError):
        an.lossy_link_goodput_mbps("b", 2, 1000, 0.5, 1, after_failure="difs")
