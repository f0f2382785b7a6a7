"""sock_diag parsing (pure, on crafted kernel messages) and the sampler on a real namespace."""
from __future__ import annotations

import os
import shutil
import socket
import struct

import pytest

from harness.errors import HarnessError
from harness.kernel import naming, netns
from harness.kernel import tcp_diag as D
from harness.traffic import flows as traffic
from harness.traffic import servers


def tcp_info(**fields) -> bytes:
    raw = bytearray(232)  # Linux 6.1's struct tcp_info size
    for name, offset, fmt in D.TCP_INFO_FIELDS:
        struct.pack_into("=" + fmt, raw, offset, fields.get(name, 0))
    return bytes(raw)


def rta(kind: int, data: bytes) -> bytes:
    length = 4 + len(data)
    return struct.pack("=HH", length, kind) + data + b"\0" * ((-length) % 4)


def diag_msg(local=("10.0.0.1", 46546), peer=("10.0.0.4", 5201), info=b"", cong=b"reno\0",
             timer=0, expires=0):
    head = struct.pack("=BBBB", socket.AF_INET, D.TCP_ESTABLISHED, timer, 0)
    sockid = struct.pack("!HH16s16sI8s", local[1], peer[1], socket.inet_aton(local[0]),
                         socket.inet_aton(peer[0]), 0, b"\0" * 8)
    body = head + sockid + struct.pack("=IIIII", expires, 0, 0, 0, 0)
    if info:
        body += rta(D.INET_DIAG_INFO, info)
    if cong:
        body += rta(D.INET_DIAG_CONG, cong)
    return struct.pack("=IHHII", 16 + len(body), D.SOCK_DIAG_BY_FAMILY, 2, 1, 0) + body


def done() -> bytes:
    return struct.pack("=IHHII", 20, D.NLMSG_DONE, 2, 1, 0) + b"\0" * 4


def test_dump_request_asks_for_ipv4_tcp_established_with_info_and_congestion():
    req = D.dump_request(seq=7)
    length, kind, flags, seq, _ = struct.unpack_from("=IHHII", req)
    assert length == len(req) == 16 + 8 + 48 and kind == D.SOCK_DIAG_BY_FAMILY and seq == 7
    assert flags & D.NLM_F_DUMP == D.NLM_F_DUMP
    family, proto, ext, _pad, states = struct.unpack_from("=BBBBI", req, 16)
    assert (family, proto, states) == (socket.AF_INET, socket.IPPROTO_TCP, 2)
    assert ext == (1 << (D.INET_DIAG_INFO - 1)) | (1 << (D.INET_DIAG_CONG - 1))


def test_parse_dump_reads_endpoints_congestion_and_tcp_info():
    data = (diag_msg(info=tcp_info(snd_cwnd=23, unacked=9, rtt_us=12500, rttvar_us=3250,
                                   total_retrans=4, snd_mss=1448, bytes_acked=12800000),
                     cong=b"westwood\0")
            + diag_msg(local=("10.0.0.1", 5201), peer=("10.0.0.4", 46536), info=tcp_info())
            + done())
    socks, finished = D.parse_dump(data)
    assert finished and len(socks) == 2
    s = socks[0]
    assert (s.local, s.peer, s.congestion, s.ports) == ("10.0.0.1:46546", "10.0.0.4:5201",
                                                         "westwood", (46546, 5201))
    sample = traffic.sample_of(s, 1.5)
    assert (sample.cwnd, sample.unacked, sample.rtt_ms, sample.rttvar_ms) == (23, 9, 12.5, 3.25)
    assert (sample.retrans_total, sample.mss, sample.bytes_acked, sample.t) == (4, 1448,
                                                                             12800000, 1.5)
    assert sample.in_flight == 9 and sample.ca_state == 0


def test_samples_carry_the_retransmission_timer_and_the_last_send_and_ack():
    # struct tcp_info: backoff at byte 4, rto 8 (us), last_data_sent 44, last_ack_recv 56 (ms)
    info = tcp_info(backoff=3, rto_us=1_600_000, last_data_sent_ms=1234, last_ack_recv_ms=4321)
    assert info[4] == 3 and struct.unpack_from("=I", info, 8) == (1_600_000,)
    assert struct.unpack_from("=I", info, 44) == (1234,) and struct.unpack_from("=I", info, 56) == (4321,)
    (sock,), _ = D.parse_dump(diag_msg(info=info, timer=1, expires=250) + done())
    s = traffic.sample_of(sock, 0.0)
    assert (s.rto_ms, s.backoff, s.timer, s.timer_ms) == (1600.0, 3, 1, 250)
    assert (s.since_send_ms, s.since_ack_ms) == (1234, 4321)
    (idle,), _ = D.parse_dump(diag_msg(info=tcp_info(), timer=0, expires=99) + done())
    assert traffic.sample_of(idle, 0.0).timer_ms is None     # no timer pending


def test_in_flight_leaves_out_segments_marked_lost_or_sacked_and_adds_retransmissions():
    # struct tcp_info: ca_state at byte 1, unacked 24, sacked 28, lost 32, retrans 36
    info = tcp_info(unacked=10, sacked=1, lost=7, retrans=2, ca_state=4)
    raw = bytearray(info)
    assert raw[1] == 4 and struct.unpack_from("=IIII", raw, 24) == (10, 1, 7, 2)
    (sock,), _ = D.parse_dump(diag_msg(info=info) + done())
    sample = traffic.sample_of(sock, 0.0)
    assert (sample.unacked, sample.in_flight, sample.ca_state) == (10, 4, 4)
    assert traffic.in_flight({"unacked": 3, "sacked": None, "lost": 0, "retrans": 0}) is None


def test_a_short_tcp_info_leaves_later_fields_unknown_and_a_dump_may_span_reads():
    socks, finished = D.parse_dump(diag_msg(info=tcp_info(snd_cwnd=5)[:104]))
    assert not finished
    info = socks[0].info
    assert info["snd_cwnd"] == 5 and info["total_retrans"] == 0 and info["bytes_acked"] is None


def test_an_error_message_is_raised():
    err = struct.pack("=IHHII", 20, D.NLMSG_ERROR, 0, 1, 0) + struct.pack("=i", -22)
    with pytest.raises(HarnessError, match="error -22"):
        D.parse_dump(err)


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("iperf3"),
                    reason="needs root and iperf3")
def test_sampler_sees_the_flow_in_its_namespace_only():
    tag = naming.new_tag()
    node = netns.Node("unit", naming.netns_name(tag, "unit"), tag)
    node.create()
    try:
        server = node.popen(["iperf3", "-s", "-1", "-p", "5301", "-B", "127.0.0.1", "--forceflush"])
        servers.wait_listening(server)  # not a fixed sleep: a loaded host starts it late
        sampler = traffic.SsSampler(node, 5301, interval=0.1)
        client = node.popen(["iperf3", "-c", "127.0.0.1", "-p", "5301", "-t", "1", "-C", "reno"])
        client.wait(15)
        samples = sampler.stop()
    finally:
        node.destroy()
    assert samples, "no sample of the flow"
    assert {s.congestion for s in samples} >= {"reno"}
    assert all("5301" in (s.local + s.peer) for s in samples)
    data = traffic.data_samples(samples)
    assert max(s.bytes_acked for s in data) > 1_000_000 and all(s.cwnd for s in data)
    assert [s.t for s in data] == sorted(s.t for s in data)
