"""mediumd end to end: real Linux TCP/UDP over hwsim radios, the medium started by Network.

What it shows (issue 3, "End to end, in the VM"):
- one hop, saturated UDP (1472-byte payload) and TCP at 2, 11 (802.11b) and 54 Mbit/s
  (802.11g): goodput within 3% of harness.medium.analytic (TCP: one ACK exchange per two
  segments), and in virtual time a delivery lag p99 under 100 us (UDP) or 500 us (TCP);
- a 4-station chain (ns-2 geometry, static routes): the 3-hop UDP flow gets well below the
  one-hop value, and the medium's counters say the air was busy (contention), with lag
  percentiles reported so a CPU-starved run is recognisable;
- a hidden-terminal triangle with two iperf3 UDP senders: RTS/CTS raises delivered throughput;
- the retry limit configured on a radio is what the medium enforces, frame by frame in its
  capture (the short and long retry counters), and the kernel's own tx-failed count, which
  comes from the medium's tx status, agrees with the medium's drops.

Every failure prints the numbers, the analytic value and the medium's evidence (lag, busy).
Regime: fixed legacy rates (minstrel pinned), IBSS, stations 20 m apart unless stated.
"""
from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from harness.cli.bench import load_bench
from harness.medium.counters import backlogged_goodput_mbps, link_stats, sampled, stats_delta
from harness.medium.daemon import handle_for
from harness.medium.pcap import frame_tries, read_attempts
from harness.medium.spec import MediumSpec
from harness.net.network import Network
from harness.net.topo import Topology
from harness.traffic.flows import Flow, ping, retry_setup, run_flow, run_together
from harness.traffic.iperf import receiver_mbps

pytestmark = pytest.mark.emulation

#: The fidelity checks ``harness bench medium`` runs (bench/medium_fidelity.py: a bench, not a
#: module of the harness package), so this test measures what the report measures.
_fidelity = load_bench("medium_fidelity")
BASIC, cpu_bound, run_check = _fidelity.BASIC, _fidelity.cpu_bound, _fidelity.run_check
starved_reason, tcp_check, udp_check = (_fidelity.starved_reason, _fidelity.tcp_check,
                                        _fidelity.udp_check)


def _in_vm() -> bool:
    from harness.kernel.host import in_vm
    return in_vm()


#: Percent of the analytic value a one-hop check must come within.
TOLERANCE_PCT = 3.0
#: Delivery lag p99 bounds (us) for a one-hop check in virtual time, set in the QEMU guest
#: under its instruction counter (docs/engine.md, "The engine before UML"), where only guest
#: work delayed a frame. With UDP that was mediumd's own wake-up (p99 ~30 us measured). With
#: TCP the one vCPU also ran both endpoints' TCP work, much of it in the softirqs the medium's
#: own deliveries trigger, which no priority can pre-empt: measured p99 131-262 us at 54
#: Mbit/s, 25 us at 11 Mbit/s (with mediumd at real-time priority and preempt=full; 491 / 360
#: us before). In a UML guest guest work costs no time at all (p99 0.5 us). The throughput itself
#: is asserted against the analytic value; these bounds catch a medium whose timing has come
#: loose from the guest's clock (wall-clock runs on a busy host: milliseconds).
VIRTUAL_LAG_P99_US = {"udp": 100.0, "tcp": 500.0}


def virtual_time() -> bool:
    import os
    return _in_vm() and os.environ.get("HARNESS_VM_CLOCK") == "virtual"


def assert_fidelity(check) -> None:
    """Within tolerance of the analytic value, and in virtual time with a small delivery lag;
    a miss prints the numbers and the medium's evidence, and says whether the CPU (not the
    air) was the limit."""
    print("\n" + story(check))
    why = f" [{starved_reason(check)}]" if cpu_bound(check) else ""
    assert check.ok, story(check) + why
    if virtual_time():
        p99 = (check.medium.get("lag_us") or {}).get("p99")
        bound = VIRTUAL_LAG_P99_US[check.protocol]
        assert p99 is not None and p99 < bound, (
            f"delivery lag p99 {p99} us >= {bound:g} us in virtual time: " + story(check))


def story(check) -> str:
    return (f"{check.name}: measured {check.measured} Mbit/s, analytic {check.expected:.3f} "
            f"({check.error_pct:+.1f}%, tolerance {check.tolerance_pct}%) {check.note}\n"
            f"settings {json.dumps(check.settings())}\nmedium {json.dumps(check.medium)}")


# -- one hop against the analytic model ------------------------------------------------------
@pytest.mark.parametrize("phy, rate", [("b", 11), ("g", 54)])
def test_udp_one_hop_matches_analytic(phy, rate):
    assert_fidelity(run_check(udp_check(phy, rate, duration=8, tolerance_pct=TOLERANCE_PCT)))


@pytest.mark.parametrize("phy, rate", [("b", 11), ("g", 54)])
def test_tcp_one_hop_matches_analytic(phy, rate):
    assert_fidelity(run_check(tcp_check(phy, rate, duration=8, tolerance_pct=TOLERANCE_PCT)))



@pytest.mark.slow
@pytest.mark.parametrize("proto, phy, rate", [
    ("udp", "b", 2), ("tcp", "b", 2), ("udp", "g", 24)])
def test_one_hop_other_rates_match_analytic(proto, phy, rate):
    make = udp_check if proto == "udp" else tcp_check
    assert_fidelity(run_check(make(phy, rate, duration=15, tolerance_pct=TOLERANCE_PCT)))


# -- retry limit ---------------------------------------------------------------------------
def lossy_pair(retry_limit: int, per: float, pcap: Path) -> Network:
    topo = Topology("retry")
    topo.add_station("sta1", (0, 0), phy="g", rate=54, retry_limit=retry_limit)
    topo.add_station("sta2", (20, 0), phy="g", rate=54)
    spec = MediumSpec.from_dict({"basic_rates": {"g": list(BASIC["g"])}, "pcap": str(pcap),
                                 "links": [{"a": "sta1", "b": "sta2", "per": per, "oneway": True}]})
    return Network(topo, medium=spec)


def static_neighbours(net: Network, a: str, b: str) -> None:
    """Permanent ARP entries both ways: broadcast ARP gets one try on a link losing half its
    frames, and a failed resolution ("No route to host") would end the flow, not test it."""
    for x, y in ((a, b), (b, a)):
        mac = net[y].cmd(["cat", "/sys/class/net/wlan0/address"]).stdout.strip()
        net[x].cmd(["ip", "neigh", "replace", net[y].ip, "lladdr", mac, "dev", "wlan0",
                    "nud", "permanent"])


def kernel_tx_failed(net: Network, node: str, peer_mac: str) -> int:
    out = net[node].cmd(["iw", "dev", "wlan0", "station", "get", peer_mac]).stdout
    m = re.search(r"tx failed:\s*(\d+)", out)
    assert m, out
    return int(m.group(1))


def failure_fraction(tries, p: float) -> tuple:
    """(fraction failed, allowed deviation): binomial, 4 sigma + 1 %."""
    n = len(tries)
    frac = sum(a.failed for a in tries) / n
    return frac, 4 * (p * (1 - p) / n) ** 0.5 + 0.01


def tried_after_short_limit(frame, limit: int) -> bool:
    """Whether any PPDU of the frame followed its limit-th try without RTS (every try of a
    frame but its last failed, so that try failed); covers more than R bare tries too."""
    plain_at = [i for i, a in enumerate(frame.tries) if not a.rts]
    return len(plain_at) >= limit and plain_at[limit - 1] < len(frame.tries) - 1


@pytest.mark.parametrize("retry_limit", [2, 4])
def test_retry_limit_is_enforced_by_the_medium(retry_limit, tmp_path):
    """Frame loss p = 0.5 on sta1 -> sta2 (every PPDU that way, ACKs back clean), retry limit
    R on sta1, judged frame by frame from the medium's capture.

    Linux's rate control (minstrel) hands each frame its own table of tries: most ask for
    more than R, some for fewer (those end at the table's end), and the fallback entries go
    out behind RTS/CTS, whose RTS crosses the lossy link too. So the share of frames
    dropped is not p^R for every frame (a run in CI had 8.7 % at R = 4, not 6.25 %), and
    the test checks the rules instead (802.11-2012 9.3.4.4, docs/medium.md):
    - a failure of a data PPDU sent without RTS counts on the short retry counter: no
      frame gets more than R of them, and none gets any try after its R-th failed;
    - a data PPDU sent after a CTS counts on the long counter (also R here): at most R;
    - the limit is reached: with the kernel's default (7) frames would get more tries;
    - each data PPDU is lost with probability p, protected or not;
    - the kernel counts as failed exactly the frames the medium reported unacknowledged."""
    p = 0.5
    pcap = tmp_path / "medium.pcap"
    with lossy_pair(retry_limit, p, pcap) as net:
        handle = handle_for(net)
        sta1_mac, sta2_mac = net.radios[0].mac, net.radios[1].mac
        static_neighbours(net, "sta1", "sta2")     # ARP over a lossy link is not under test
        ping(net, "sta1", "sta2", count=3)          # peer state (may lose some: fine)
        flow = Flow("sta1", "sta2", 6, "udp", bitrate="2M", extra=["-l", "1000"])

        def measured_flow():
            failed_before = kernel_tx_failed(net, "sta1", sta2_mac)
            before = handle.stats()
            result = run_flow(net, flow).result
            delta = stats_delta(before, handle.stats())
            return result, delta, kernel_tx_failed(net, "sta1", sta2_mac) - failed_before
        # The UDP setup datagram crosses the lossy link too (lost with p^R: 25% at R = 2).
        result, delta, failed = retry_setup(measured_flow, attempts=5)
    frames = frame_tries(read_attempts(pcap), sta1_mac, sta2_mac)   # complete once stopped
    link = link_stats(delta, "sta1", "sta2")

    plain = [a for f in frames for a in f.plain]
    protected = [a for f in frames for a in f.protected]
    after_last = [f for f in frames if tried_after_short_limit(f, retry_limit)]
    long_past = [f for f in frames if len(f.protected) > retry_limit]
    at_limit = [f for f in frames if len(f.plain) == retry_limit and f.plain[-1].failed]
    # dropped before R tries without RTS: the kernel's table ended, or failed RTS counted
    early = [f for f in frames if not f.acked and len(f.plain) < retry_limit]
    plain_frac, plain_tol = failure_fraction(plain, p)
    text = (f"R={retry_limit} p={p}: {len(frames)} frames in the capture, "
            f"{len(plain)} data PPDUs without RTS ({plain_frac:.3f} failed, want {p} +- "
            f"{plain_tol:.3f}), {len(protected)} after a CTS; "
            f"{len(at_limit)} frames dropped at the limit, {len(early)} before it (a shorter "
            f"kernel table, or failed RTS); tried after the R-th failure without "
            f"RTS {len(after_last)}, past the long limit {len(long_past)}; "
            f"kernel tx failed {failed}, iperf3 lost {result.lost_percent}%\nlink {link}")
    print("\n" + text)
    assert len(frames) > 500 and len(plain) > 500, text
    assert not after_last and not long_past, text
    # reached: with p = 0.5 about N p^(R-1) frames come to their R-th try
    assert len(at_limit) >= 10, text
    assert abs(plain_frac - p) < plain_tol, text
    if len(protected) >= 50:
        prot_frac, prot_tol = failure_fraction(protected, p)
        assert abs(prot_frac - p) < prot_tol, text + f"\nafter a CTS: {prot_frac:.3f} failed"
    # the kernel counts as failed exactly the frames the medium reported unacknowledged
    assert abs(failed - link["retry_drops"]) <= max(3, 0.02 * link["retry_drops"]), text


# -- a chain: contention, not CPU --------------------------------------------------------------
def chain_network(hops: int) -> Network:
    from topologies.chain import build
    topo = build(hops=hops, spacing=200.0, rate=11, phy="b")
    spec = MediumSpec.from_dict({"tx_range": 250, "cs_range": 550, "propagation": "two_ray",
                                 "basic_rates": {"b": list(BASIC["b"])}})
    return Network(topo, medium=spec)


def saturated_udp(net: Network, src: str, dst: str, seconds: float, rate: str = "12M",
                  port: int = 5201):
    handle = handle_for(net)

    def measured():
        before = handle.stats()
        flow = Flow(src, dst, seconds + 1, "udp", bitrate=rate, port=port,
                    extra=["-l", "1472", "--omit", "1", "--get-server-output"])
        result = run_together(net, [flow])[0]
        return receiver_mbps(result, skip=0), stats_delta(before, handle.stats())
    return retry_setup(measured)


def test_chain_three_hops_is_limited_by_contention():
    with chain_network(3) as net:
        ping(net, "sta1", "sta4", count=3)
        one, d1 = saturated_udp(net, "sta1", "sta2", 6)
        three, d3 = saturated_udp(net, "sta1", "sta4", 8)
    busy = {r["node"]: round(r["busy_fraction"], 3) for r in d3["radios"]}
    coll = {f"{l['tx_node']}>{l['rx_node']}": l["collisions"] for l in d3["links"] if l["attempts"]}
    drops = {r["node"]: r["queue_drops"] for r in d3["radios"]}
    text = (f"1 hop {one:.3f} Mbit/s, 3 hops {three:.3f} Mbit/s (receiver side; ratio "
            f"{three / max(one, 1e-9):.2f})\n"
            f"3-hop busy fraction {busy}, collisions {coll}, queue drops {drops}\n"
            f"lag_us {d3['lag_us']}")
    print("\n" + text)
    assert three < 0.5 * one, text
    # Contention, not CPU: (1) frames waited for air at the first relay (its queue overflowed:
    # a CPU-starved chain would have nothing queued); (2) the air around the relays was busy
    # (one saturated link alone keeps it busy ~81% at 11 Mbit/s: data+SIFS+ACK over
    # DIFS+mean backoff+data+SIFS+ACK; an idle-ish air would mean the supply of frames limited);
    # (3) hops x goodput uses about the airtime of one saturated link.
    assert drops["sta2"] > 0, text
    assert busy["sta2"] > 0.6 and busy["sta3"] > 0.6, text
    assert 3 * three > 0.6 * one, text


# -- hidden terminals -----------------------------------------------------------------------
HIDDEN_RATE = 2.0
TOGETHER_MIN_S = 5.0  # seconds both hidden senders must be saturated together to compare


def triangle(rts: bool) -> Network:
    """a and c 400 m apart, b between; tx range = carrier-sense range = 250 m, so a and c
    cannot hear each other but both reach b (two_ray). 802.11b 2 Mbit/s: a 1472-byte frame
    is 6 ms on air, so an unprotected frame is exposed for long (the core's tests show the
    collapse is deepest at low rates), and ~170 frames/s keep the guest's CPU out of it.
    rts=False turns the RTS threshold off; minstrel still protects its fallback rate-table
    entries with RTS/CTS, so the collapse is milder than the core's (docs/medium.md)."""
    topo = Topology("hidden")
    for name, x in (("a", 0.0), ("b", 200.0), ("c", 400.0)):
        topo.add_station(name, (x, 0.0), phy="b", rate=HIDDEN_RATE, rts=True if rts else False)
    spec = MediumSpec.from_dict({"tx_range": 250, "cs_range": 250, "propagation": "two_ray",
                                 "basic_rates": {"b": list(BASIC["b"])}})
    return Network(topo, medium=spec)


def pin_neighbours(net: Network, pairs) -> None:
    """Permanent neighbour (ARP) entries both ways between each pair: the test measures the
    MAC under hidden terminals, not ARP. An entry gone stale mid-test is resolved again by
    broadcast, which has no MAC retries and is lost to the other sender's stream: a connect
    then failed with "No route to host" (seen in CI once the guest's timing shifted)."""
    radio = {r.node: r for r in net.radios}
    for x, y in pairs:
        for here, there in ((x, y), (y, x)):
            ip = (net.topo.primary_ip(there) or "").split("/")[0]
            net.nodes[here].cmd(["ip", "neigh", "replace", ip, "lladdr", radio[there].mac,
                                 "dev", radio[here].intf, "nud", "permanent"])


def two_senders(net: Network, seconds: float = 15):
    """Both UDP senders saturate (2M offered each), launched together. Returns the goodput
    the medium delivered to b while both were saturated (``backlogged_goodput_mbps``: a hidden
    sender's iperf3 handshake can lose its SYN for seconds while the other flow has the air
    alone), the seconds that covers, each flow's own receiver-side goodput, and the counters."""
    handle = handle_for(net)
    pin_neighbours(net, [("a", "b"), ("c", "b")])
    ping(net, "a", "b", count=2)
    ping(net, "c", "b", count=2)
    extra = ["-l", "1472", "--get-server-output"]
    for length in (seconds, 2 * seconds):
        flows = [Flow("a", "b", length, "udp", bitrate="2M", port=5201, extra=extra),
                 Flow("c", "b", length, "udp", bitrate="2M", port=5202, extra=extra)]
        # Without RTS/CTS the hidden senders collide so often that a setup datagram can be
        # lost several times running (each MAC try collides too): allow more attempts.
        results, samples = retry_setup(
            lambda flows=flows: sampled(handle, lambda: run_together(net, flows)), attempts=6)
        both, common_s = backlogged_goodput_mbps(samples, [("a", "b"), ("c", "b")], 1472)
        # One flow's handshake can stay lost to the other's stream until that stream ends,
        # so the two never overlap: that measures nothing, so measure once more, longer.
        if common_s >= TOGETHER_MIN_S:
            break
    per_flow = [round(receiver_mbps(r), 3) for r in results]
    return both, common_s, per_flow, stats_delta(samples[0], samples[-1])


def test_hidden_terminals_rts_cts_raises_throughput():
    with triangle(rts=False) as net:
        plain, s_plain, flows_plain, d_plain = two_senders(net)
    with triangle(rts=True) as net:
        rts, s_rts, flows_rts, d_rts = two_senders(net)

    def coll(d):
        return {f"{l['tx_node']}>{l['rx_node']}": (l["attempts"], l["successes"], l["collisions"],
                                                    l["retry_drops"]) for l in d["links"]
                if l["attempts"]}
    single = udp_check("b", HIDDEN_RATE).expected
    text = (f"two hidden UDP senders to b, 802.11b {HIDDEN_RATE:g} Mbit/s, delivered while both "
            f"were saturated: without RTS {plain:.3f} Mbit/s over {s_plain:.1f} s, with RTS/CTS "
            f"{rts:.3f} Mbit/s over {s_rts:.1f} s (one sender alone, analytic: {single:.3f})\n"
            f"each flow's own receiver-side goodput over its whole run: {flows_plain} / {flows_rts}\n"
            f"(attempts, successes, collisions, retry drops) plain {coll(d_plain)}\n"
            f"rts {coll(d_rts)}\nlag plain {d_plain['lag_us']}\nlag rts {d_rts['lag_us']}")
    print("\n" + text)
    # Each flow runs 15 s (30 s when measured again); a handshake that loses its SYN three
    # times (1 + 2 + 4 s backoff) still leaves 8 s together.
    assert s_plain >= TOGETHER_MIN_S and s_rts >= TOGETHER_MIN_S, "the senders were not saturated together long enough\n" + text
    assert rts > 1.5 * plain, text
    a_b = link_stats(d_plain, "a", "b")
    assert a_b["collisions"] > 0.3 * a_b["attempts"], text
