"""iperf3 -J parsing, on JSON captured from real iperf3 3.12 runs on 127.0.0.1."""
from __future__ import annotations

from pathlib import Path

import pytest

from harness.errors import HarnessError
from harness.traffic import flows as traffic
from harness.traffic import iperf

DATA = Path(__file__).parent / "data" / "iperf"


def load(name: str) -> iperf.FlowResult:
    return iperf.parse((DATA / name).read_text())


def test_tcp_with_congestion_module():
    r = load("tcp_reno.json")
    assert r.protocol == "TCP" and not r.reverse
    assert r.congestion == "reno"
    assert r.throughput_bps > 1e9            # loopback
    assert r.bytes > 0 and r.bytes_sent >= r.bytes
    assert r.retransmits == 0
    assert 1.9 < r.duration < 2.2
    assert len(r.intervals) == 4
    first = r.intervals[0]
    assert first.snd_cwnd and first.snd_cwnd > 0
    assert first.rtt_us is not None and first.rtt_us > 0
    assert first.bits_per_second > 0 and first.end > first.start
    assert r.throughput_mbps == pytest.approx(r.throughput_bps / 1e6)


def test_tcp_reverse_has_no_sender_cwnd():
    r = load("tcp_reverse.json")
    assert r.reverse
    assert r.retransmits == 17               # the server was the sender
    assert all(iv.snd_cwnd is None for iv in r.intervals)
    assert r.throughput_bps > 0


def test_tcp_window():
    r = load("tcp_window.json")
    assert r.protocol == "TCP" and r.throughput_bps > 0


def test_udp_loss_and_jitter():
    r = load("udp.json")
    assert r.protocol == "UDP"
    assert r.lost_packets == 0 and r.packets and r.packets > 100
    assert r.jitter_ms is not None and r.jitter_ms >= 0
    assert r.retransmits is None
    assert 15e6 < r.throughput_bps < 25e6    # -b 20M
    assert r.intervals[0].packets and r.intervals[0].packets > 0


def test_error_report_raises_with_message():
    with pytest.raises(HarnessError, match="Connection refused"):
        load("error_refused.json")


def test_not_json():
    with pytest.raises(HarnessError, match="not JSON"):
        iperf.parse("iperf3: error - unable to connect")


def test_client_args():
    flow = traffic.Flow("sta1", "sta4", duration=5, congestion="westwood", window="64K", reverse=True)
    args = traffic.client_args(flow, "10.0.0.4")
    assert args[:3] == ["iperf3", "-c", "10.0.0.4"]
    assert ["-C", "westwood"] == args[args.index("-C"):args.index("-C") + 2]
    assert "-R" in args and "-J" in args and "-w" in args
    with pytest.raises(HarnessError, match="allowed tcp, udp"):
        traffic.client_args(traffic.Flow("a", "b", protocol="sctp"), "10.0.0.2")


PING = """PING 10.0.0.4 (10.0.0.4) 56(84) bytes of data.
64 bytes from 10.0.0.4: icmp_seq=1 ttl=61 time=0.912 ms
64 bytes from 10.0.0.4: icmp_seq=2 ttl=61 time=0.450 ms

--- 10.0.0.4 ping statistics ---
3 packets transmitted, 2 received, 33.3333% packet loss, time 402ms
rtt min/avg/max/mdev = 0.450/0.681/0.912/0.231 ms
"""


def test_parse_ping():
    p = traffic.parse_ping(PING)
    assert (p.sent, p.received) == (3, 2)
    assert p.loss_percent == pytest.approx(33.33, abs=0.01)
    assert (p.min_ms, p.avg_ms, p.max_ms, p.mdev_ms) == (0.450, 0.681, 0.912, 0.231)
    assert p.ttls == [61, 61]
    lost = traffic.parse_ping("--- x ---\n5 packets transmitted, 0 received, 100% packet loss\n")
    assert lost.received == 0 and lost.avg_ms is None


# -- the iperf3 server lifecycle (harness.traffic.servers) -------------------------------
def _node(ip=None):
    from harness.kernel.netns import Node
    node = Node("sta2", "hx-0000-sta2", "0000")
    node.ips = [f"{ip}/24"] if ip else []
    return node


def test_server_is_one_shot_bound_to_the_node_and_flushed():
    from harness.traffic.servers import server_args
    assert server_args(_node("10.0.0.2"), 5202) == \
        ["iperf3", "-s", "-1", "-p", "5202", "-B", "10.0.0.2", "--forceflush"]
    with pytest.raises(HarnessError, match="iperf3 server on sta2: the node has no IP address"):
        server_args(_node(), 5201)


def test_wait_listening_returns_once_the_server_says_so_and_stop_forgets_it():
    import subprocess

    from harness.traffic.servers import stop, wait_listening
    node = _node("10.0.0.2")
    proc = subprocess.Popen(["sh", "-c", "echo 'Server listening on 5201'; exec sleep 30"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    node.procs.append(proc)
    wait_listening(proc, timeout=5)
    assert proc.poll() is None
    stop(node, proc, grace=1)
    assert proc.poll() is not None and node.procs == []


def test_wait_listening_reports_what_a_failed_server_printed():
    import subprocess

    from harness.traffic.servers import wait_listening
    proc = subprocess.Popen(["sh", "-c", "echo 'iperf3: error - unable to start listener' >&2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    with pytest.raises(HarnessError, match="did not start listening: iperf3: error - unable"):
        wait_listening(proc, timeout=5)
