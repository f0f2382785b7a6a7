"""Policies and executor helpers that need no kernel: route commands, clamp verification,
policy composition from the catalog, MAC settings on a description, flow plans, accel."""
from __future__ import annotations

import pytest

from harness.errors import HarnessError
from harness.experiment import schema
from harness.experiment.execute import detect_accel, iperf_flow, make_policies, plan_flows
from harness.experiment.registry import default_registry
from harness.kernel import shaping
from harness.traffic.flows import SsSample, client_args
from policies import FlowPlan, PolicyViolation, RunContext, routes, segment_size, westwood
from policies.ack import DelayedAck
from policies.mac import Mac
from policies.segment_size import SegmentSize
from policies.tcp import TCP_RECOVERY, Buffers, Congestion, Recovery, Sack
from policies.tx_delay import TxDelay
from policies.westwood import HxWestwood
from policies.window import SEGMENT_BYTES, CwndClamp, RwndClamp, check_window
from topologies import chain

TEXT = """\
name: p
topology: {builder: chain, hops: 2, phy: b, rate: 2}
policy: {cwnd_clamp: 2, delayed_ack: false, sack: false, congestion: reno,
         mac: {rts: true, retry_limit: 4}}
flows:
  - {src: first, dst: last}
  - {src: first, dst: last, direction: reverse, protocol: udp, bitrate: 1M, start: 2}
"""


def sample(t, cwnd, unacked, retrans=0, mss=SEGMENT_BYTES):
    return SsSample(t=t, local="a", peer="b", congestion="reno", cwnd=cwnd, rtt_ms=5.0,
                    rttvar_ms=1.0, unacked=unacked, bytes_acked=1000, retrans_total=retrans,
                    mss=mss)


# -- routes ------------------------------------------------------------------------------
def test_route_get_parsing_with_and_without_gateway():
    assert routes.parse_route_get("10.0.0.4 via 10.0.0.2 dev wlan0 src 10.0.0.1 uid 0 \\    cache") \
        == ("10.0.0.2", "wlan0")
    assert routes.parse_route_get("10.0.0.2 dev wlan0 src 10.0.0.1 uid 0") == (None, "wlan0")
    with pytest.raises(HarnessError, match="no device"):
        routes.parse_route_get("unreachable")


def test_one_route_carries_every_metric_in_a_fixed_order():
    args = routes.route_replace_args("10.0.0.1", "10.0.0.2", "wlan0",
                                     {"quickack": "1", "window": "2896", "cwnd": "lock 2"})
    assert args == ["ip", "route", "replace", "10.0.0.1/32", "via", "10.0.0.2", "dev", "wlan0",
                    "cwnd", "lock", "2", "window", "2896", "quickack", "1"]
    with pytest.raises(HarnessError, match="allowed cwnd, window, quickack"):
        routes.metric_args({"rto_min": "5ms"})


# -- clamp verification -------------------------------------------------------------------
def test_clamp_holds():
    got = check_window([sample(0, 2, 2), sample(0.5, 2, 1)], 2, what="cwnd clamp",
                       check_cwnd=True)
    assert got["held"] and got["max_cwnd"] == 2 and got["samples"] == 2


def test_cwnd_above_the_clamp_fails_loudly_with_the_samples():
    with pytest.raises(PolicyViolation, match=r"cwnd clamp 2 did not hold: 1 of 2 .*t=0.5s cwnd=10"):
        check_window([sample(0, 2, 2), sample(0.5, 10, 2)], 2, what="cwnd clamp", check_cwnd=True)


def test_unacked_above_the_window_is_excused_only_in_loss_recovery():
    ok = check_window([sample(0, 2, 2), sample(1, 2, 3, retrans=1)], 2, what="cwnd clamp",
                      check_cwnd=True)
    assert ok["unacked_excused_in_recovery"] == 1
    with pytest.raises(PolicyViolation, match="unacked=5"):
        check_window([sample(0, 2, 2, retrans=1), sample(1, 2, 5, retrans=1)], 2,
                     what="cwnd clamp", check_cwnd=True)


def prr_sample(t, cwnd, in_flight, ca_state):
    return SsSample(t=t, local="a", peer="b", congestion="reno", cwnd=cwnd, rtt_ms=5.0,
                    rttvar_ms=1.0, unacked=in_flight, bytes_acked=1000, retrans_total=1,
                    mss=SEGMENT_BYTES, in_flight=in_flight, ca_state=ca_state)


def test_prr_may_put_cwnd_above_the_clamp_in_fast_recovery_only():
    # Linux's tcp_cwnd_reduction sets cwnd = in_flight + sndcnt without the clamp
    ok = check_window([prr_sample(0, 16, 16, 0), prr_sample(0.5, 18, 18, 3),
                       prr_sample(1.0, 21, 17, 2)], 16, what="cwnd clamp", check_cwnd=True)
    assert ok["held"] and ok["excused_in_prr"] == 2 and ok["max_over_in_prr"] == 5
    with pytest.raises(PolicyViolation, match="t=0.5s cwnd=17"):       # open state: no excuse
        check_window([prr_sample(0.5, 17, 16, 0)], 16, what="cwnd clamp", check_cwnd=True)
    with pytest.raises(PolicyViolation, match="in_flight=19"):         # loss state: no excuse
        check_window([prr_sample(0.5, 16, 19, 4)], 16, what="cwnd clamp", check_cwnd=True)


def test_limited_transmit_may_send_two_segments_beyond_a_held_cwnd():
    ok = check_window([sample(0, 2, 2, retrans=1), sample(1, 2, 4, retrans=1)], 2,
                      what="cwnd clamp", check_cwnd=True)
    assert ok["unacked_excused_limited_transmit"] == 1


def test_receiver_window_ignores_cwnd_but_not_unacked():
    assert check_window([sample(0, 10, 2)], 2, what="rwnd clamp", check_cwnd=False)["held"]
    with pytest.raises(PolicyViolation):
        check_window([sample(0, 10, 3)], 2, what="rwnd clamp", check_cwnd=False)


def test_receiver_window_bounds_bytes_whatever_the_segment_size():
    """Linux halves the MSS to half the peer's largest window: a 1448-byte window carries two
    724-byte segments, and that is the clamp holding, not breaking."""
    got = check_window([sample(0, 10, 2, mss=724)], 1, what="rwnd clamp", check_cwnd=False,
                       window_bytes=SEGMENT_BYTES)
    assert got["held"] and got["mss_seen"] == [724]
    with pytest.raises(PolicyViolation, match="unacked=3 \\(mss 724\\)"):
        check_window([sample(0, 10, 3, mss=724)], 1, what="rwnd clamp", check_cwnd=False,
                     window_bytes=SEGMENT_BYTES)


def test_no_samples_is_a_failure_not_a_pass():
    with pytest.raises(PolicyViolation, match="no ss samples"):
        check_window([], 2, what="cwnd clamp", check_cwnd=True)


@pytest.mark.parametrize("bad", [0, 1025, 2.5, "2", True])
def test_window_values_are_checked(bad):
    with pytest.raises(HarnessError, match=r"^cwnd_clamp: .*expected an integer in \[1, 1024\], "
                                            r"or null \(unclamped\)$"):
        CwndClamp(bad)
    with pytest.raises(HarnessError, match=r"^rwnd_clamp: .*expected an integer in \[1, 1024\]"):
        RwndClamp(bad)


# -- route metrics each policy asks for ---------------------------------------------------
class FakeNet:
    """Only the attribute the policies read before touching a kernel: nothing is executed."""

    nodes: dict = {}


def test_policies_ask_for_metrics_on_the_right_ends():
    flows = [FlowPlan(0, "sta1", "sta3", False, "reno"), FlowPlan(1, "sta1", "sta3", True, "reno")]
    ctx = RunContext(FakeNet(), flows)
    assert ctx.pairs() == [("sta1", "sta3"), ("sta3", "sta1")]
    DelayedAck(False).apply(ctx)
    assert ctx.route_metrics == {("sta3", "sta1"): {"quickack": "1"},
                                 ("sta1", "sta3"): {"quickack": "1"}}
    ctx = RunContext(FakeNet(), flows[:1])
    DelayedAck(True).apply(ctx)
    assert ctx.route_metrics == {}


def test_rwnd_window_is_segments_times_mss():
    assert RwndClamp(3).window_bytes == 3 * SEGMENT_BYTES
    assert RwndClamp(None).window_bytes is None and not RwndClamp(None).active


# -- composition from the catalog -------------------------------------------------------
def test_policies_compose_in_catalog_order():
    params = schema.loads(TEXT).base
    pols = make_policies(params, default_registry())
    assert [p.name for p in pols] == ["cwnd_clamp", "delayed_ack", "sack", "congestion", "mac"]
    assert isinstance(pols[2], Sack) and pols[2].value is False
    assert isinstance(pols[3], Congestion) and pols[3].value == "reno"


def test_unknown_policy_names_the_allowed_ones():
    with pytest.raises(HarnessError, match="allowed cwnd_clamp, rwnd_clamp"):
        make_policies({"policy": {"ecn": True}}, default_registry())


def test_bad_values_are_refused_with_allowed_values():
    with pytest.raises(HarnessError, match="allowed true"):
        DelayedAck("no")
    with pytest.raises(HarnessError, match="allowed reno, cubic"):
        Congestion("cubc")
    with pytest.raises(HarnessError, match="allowed rate, rts, retry_limit"):
        Mac({"power": 3})
    with pytest.raises(HarnessError, match=r"mac.retry_limit: 40 is out of range; expected an "
                                           r"integer in \[1, 31\], or null \(unchanged\)"):
        Mac({"retry_limit": 40})
    with pytest.raises(HarnessError, match=r"mac.rts: 1 \(int\) is not allowed; expected true "
                                           r"or false"):
        Mac({"rts": 1})


def test_old_loss_recovery_turns_off_what_linux_2_6_8_lacked():
    pols = make_policies({"policy": {"tcp_recovery": "linux-2.6.8"}}, default_registry())
    assert [type(p) for p in pols] == [Recovery] and pols[0].active
    assert pols[0].record()["sysctls"] == {"net.ipv4.tcp_recovery": "0",
                                           "net.ipv4.tcp_early_retrans": "0",
                                           "net.ipv4.tcp_frto": "0"}
    assert set(TCP_RECOVERY) == {"linux-2.6.8"}
    assert not Recovery(None).active and Recovery(None).record()["sysctls"] == {}
    with pytest.raises(HarnessError, match=r"^tcp_recovery: linux-2.4 \(str\) is not allowed; "
                                           r"expected one of linux-2.6.8, or null"):
        Recovery("linux-2.4")
    with pytest.raises(HarnessError, match=r"^tcp_buffers: .*expected one of linux-2.6.14, or null"):
        Buffers("linux-2.6.8")


def test_policies_check_their_value_with_the_rule_the_catalog_offers():
    """The catalog takes these parameters from the policies' modules: one rule each."""
    assert HxWestwood(None).value == {"rtt_min_ms": 50, "filter_c": 7, "filter_norm": True}
    assert HxWestwood({"filter_c": 3}).value["filter_c"] == 3
    with pytest.raises(HarnessError, match=r"^hxwestwood.filter_c: 0 is out of range; expected "
                                           r"an integer in \[1, 1000\]"):
        HxWestwood({"filter_c": 0})
    with pytest.raises(HarnessError, match=r"^hxwestwood.filter_norm: 1 \(int\) is not allowed"):
        HxWestwood({"filter_norm": 1})
    assert SegmentSize(88).value == 88 and SegmentSize(None).value is None
    for bad in (39, 1461, True):
        with pytest.raises(HarnessError, match=r"^mss: .*expected an integer in \[40, 1460\], "
                                               r"or null \(Linux default\)"):
            SegmentSize(bad)
    registry = default_registry()
    assert registry.policies["hxwestwood"].params is westwood.PARAMS
    assert registry.policies["mss"].params[0] is segment_size.PARAM
    assert registry.policies["tcp_recovery"].params[0] is Recovery.PARAM


def test_host_latency_is_a_netem_delay_on_every_radio_in_microseconds():
    pols = make_policies({"policy": {"tx_delay": 1.5}}, default_registry())
    assert [type(p) for p in pols] == [TxDelay] and pols[0].active and pols[0].value == 1.5
    assert shaping.delay_lines("wlan0", 0.25) == [
        "tc qdisc replace dev wlan0 root netem delay 250us limit 1000"]
    assert not TxDelay(None).active and TxDelay(None).record()["value"] is None
    for bad in (0, -1, 101, "1ms", True):
        with pytest.raises(HarnessError, match=r"allowed a number in \(0, 100\] \(ms\) or null"):
            TxDelay(bad)
    with pytest.raises(HarnessError, match="tx_delay"):
        make_policies({"policy": {"tx_delay": 0}}, default_registry())


def test_mac_changes_every_station_before_start():
    topo = chain.build(hops=2, phy="b", rate=2.0)
    policy = Mac({"rate": 11, "rts": True, "retry_limit": 4})
    policy.prepare(topo)
    assert {(s.rate, s.rts, s.retry_limit) for s in topo.stations.values()} == {(11.0, True, 4)}
    assert policy.record()["in_force"] == {"rate": 11.0, "rts": True, "retry_limit": 4}
    Mac({"rate": "auto"}).prepare(topo)
    assert {s.rate for s in topo.stations.values()} == {None}
    with pytest.raises(HarnessError, match="invalid for 802.11b"):
        Mac({"rate": 54}).prepare(topo)
    assert not Mac({"rate": None}).active


# -- flows --------------------------------------------------------------------------------
def test_flow_plans_know_sender_and_receiver():
    params = schema.loads(TEXT).base
    instances, plans = plan_flows(params, ["sta1", "sta2", "sta3"])
    tcp, udp = plans
    assert (tcp.sender, tcp.receiver, tcp.congestion, tcp.port) == ("sta1", "sta3", "reno", 5201)
    assert (udp.sender, udp.receiver, udp.congestion, udp.port) == ("sta3", "sta1", None, 5202)
    args = client_args(iperf_flow(instances[1], udp), "10.0.0.3")
    assert args[args.index("-b") + 1] == "1000000" and "-R" in args and "-u" in args
    assert "-C" in client_args(iperf_flow(instances[0], tcp), "10.0.0.3")


# -- environment --------------------------------------------------------------------------
CPU_VM = "processor\t: 0\nmodel name\t: QEMU TCG CPU version 2.5+\nflags\t\t: fpu hypervisor sse\n"
CPU_HOST = "processor\t: 0\nflags\t\t: fpu sse\n"


def test_accel_detection():
    assert detect_accel(CPU_HOST, "tsc hpet") == "none"
    assert detect_accel(CPU_VM, "tsc hpet acpi_pm") == "tcg"
    assert detect_accel(CPU_VM, "kvm-clock tsc") == "kvm"


def test_iperf3_snd_cwnd_is_checked_too():
    from harness.traffic.iperf import FlowResult, Interval
    from policies.window import check_iperf_cwnd
    ok = FlowResult("TCP", 5, 1e6, 1, 1, intervals=[Interval(0, 1, 1, 1, snd_cwnd=2 * 1448)])
    assert check_iperf_cwnd(ok, 2) == {"iperf3_max_snd_cwnd_bytes": 2896}
    prr = FlowResult("TCP", 5, 1e6, 1, 1, intervals=[Interval(0, 1, 1, 1, snd_cwnd=4 * 1448)])
    with pytest.raises(PolicyViolation, match="snd_cwnd 5792"):
        check_iperf_cwnd(prr, 2)                          # ss saw no recovery above the limit
    assert check_iperf_cwnd(prr, 2, over_in_recovery=2) == {"iperf3_max_snd_cwnd_bytes": 5792}
    with pytest.raises(PolicyViolation, match="snd_cwnd 5792"):
        check_iperf_cwnd(prr, 2, over_in_recovery=1)      # more than ss saw in recovery
    bad = FlowResult("TCP", 5, 1e6, 1, 1, intervals=[Interval(0, 1, 1, 1, snd_cwnd=14480)])
    with pytest.raises(PolicyViolation, match="snd_cwnd 14480"):
        check_iperf_cwnd(bad, 2)
    bad.reverse = True  # the client receives: its snd_cwnd is not the flow's
    assert check_iperf_cwnd(bad, 2) == {}


def test_a_cwnd_clamp_is_judged_on_segments_in_flight_when_the_sample_has_them():
    # after a timeout: 10 unacknowledged, 8 of them marked lost, 2 retransmitted -> 4 in flight
    after_rto = sample(2, 4, 10, retrans=3)
    after_rto.in_flight = 4
    ok = check_window([sample(0, 4, 4, retrans=3), sample(1, 4, 4, retrans=3), after_rto], 4,
                      what="cwnd clamp", check_cwnd=True)
    assert ok["held"] and ok["max_unacked"] == 10 and ok["max_in_flight"] == 4
    over = sample(3, 4, 7, retrans=4)
    over.in_flight = 7  # retransmitting does not excuse in-flight segments beyond the clamp
    with pytest.raises(PolicyViolation, match="in_flight=7"):
        check_window([sample(0, 4, 4, retrans=3), over], 4, what="cwnd clamp", check_cwnd=True)


def test_a_receiver_window_is_judged_on_unacked_even_when_in_flight_is_known():
    s = sample(1, None, 3, mss=SEGMENT_BYTES)
    s.in_flight = 1
    with pytest.raises(PolicyViolation, match="unacked=3"):
        check_window([s], 2, what="rwnd clamp", check_cwnd=False, window_bytes=2 * SEGMENT_BYTES)


@pytest.mark.parametrize("release, newer", [("7.3.4", True), ("6.6.0", True),
                                            ("6.1.176", False), ("5.19.2", False),
                                            ("unknown", False)])
def test_kernel_release_comparison_for_what_a_kernel_ignores(release, newer):
    from harness.kernel.host import kernel_at_least
    assert kernel_at_least(6, 6, release) is newer
