"""harness.medium.pcap: records and per-frame grouping, on captures written here byte by byte
in mediumd's format (mediumd/daemon/pcap.h)."""
from __future__ import annotations

import struct

import pytest

from harness.errors import HarnessError
from harness.medium.pcap import frame_tries, read_attempts

A, B = "02:00:00:00:00:01", "02:00:00:00:00:02"


def mac(s: str) -> bytes:
    return bytes(int(x, 16) for x in s.split(":"))


def record(t_ns: int, frame: bytes, *, failed=False, rts=False, no_ack=False, rate=108,
           attempt=1) -> bytes:
    present = (1 << 1) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 15) | (1 << 17)
    tx_flags = (0x0001 if failed else 0) | (0x0004 if rts else 0) | (0x0008 if no_ack else 0)
    rt = struct.pack("<BBHIBBHHbxHB", 0, 0, 19, present, 0x40 if failed else 0, rate, 2412,
                     0x00C0, -40, tx_flags, attempt - 1)
    assert len(rt) == 19
    pkt = rt + frame
    return struct.pack("<IIII", t_ns // 10**9, t_ns % 10**9, len(pkt), len(pkt)) + pkt


def qos_data(ta: str, ra: str, seq: int) -> bytes:
    return (bytes([0x88, 0]) + b"\0\0" + mac(ra) + mac(ta) + mac(ra) +
            struct.pack("<H", seq << 4) + b"\0\0" + b"payload")


def ack(ra: str) -> bytes:
    return bytes([0xD4, 0]) + b"\0\0" + mac(ra)


def pcap(*records: bytes) -> bytes:
    return struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 127) + b"".join(records)


def test_attempts_and_frames(tmp_path):
    path = tmp_path / "m.pcap"
    path.write_bytes(pcap(
        record(1000, qos_data(A, B, 7), failed=True),
        record(2000, qos_data(A, B, 7), failed=True, attempt=2),
        record(3000, qos_data(A, B, 7), rts=True, attempt=3),
        record(3100, ack(A), rate=48),
        record(5000, qos_data(A, B, 8)),
        record(4000, qos_data(B, A, 1)),                      # other direction, out of order
        record(6000, qos_data(A, "ff:ff:ff:ff:ff:ff", 9), no_ack=True),
        record(7000, qos_data(A, B, 9), failed=True)))
    attempts = read_attempts(path)
    assert [a.time_ns for a in attempts] == sorted(a.time_ns for a in attempts)
    assert attempts[3].kind == "ack" and attempts[3].ra == A and attempts[3].rate_mbps == 24
    first = attempts[0]
    assert (first.kind, first.ta, first.ra, first.seq, first.failed, first.rate_mbps) == \
        ("data", A, B, 7, True, 54)

    frames = frame_tries(attempts, A, B)
    assert [(f.seq, len(f.plain), len(f.protected), f.acked) for f in frames] == \
        [(7, 2, 1, True), (8, 1, 0, True), (9, 1, 0, False)]
    assert [a.attempt for a in frames[0].tries] == [1, 2, 3]


def test_a_sequence_number_seen_again_after_an_ack_is_a_new_frame(tmp_path):
    """12-bit sequence numbers wrap: the same number after an acknowledged PPDU is another
    frame, the same number after a failed one is a retry."""
    path = tmp_path / "m.pcap"
    path.write_bytes(pcap(record(1, qos_data(A, B, 5)), record(2, qos_data(A, B, 5), failed=True),
                          record(3, qos_data(A, B, 5), attempt=2)))
    frames = frame_tries(read_attempts(path), A, B)
    assert [len(f.tries) for f in frames] == [1, 2]


def test_not_a_capture(tmp_path):
    path = tmp_path / "x.pcap"
    path.write_bytes(struct.pack("<IHHiIII", 0xA1B2C3D4, 2, 4, 0, 0, 65535, 1))
    with pytest.raises(HarnessError, match="not a mediumd capture"):
        read_attempts(path)
    path.write_bytes(b"abc")
    with pytest.raises(HarnessError, match="not a pcap file"):
        read_attempts(path)


def test_a_radiotap_header_of_another_layout_is_refused(tmp_path):
    rec = bytearray(record(1, qos_data(A, B, 1)))
    rec[16 + 2] = 20                                  # radiotap length field of the record
    path = tmp_path / "m.pcap"
    path.write_bytes(pcap(bytes(rec)))
    with pytest.raises(HarnessError, match="radiotap header of 20 bytes"):
        read_attempts(path)


def mesh_broadcast(ta: str, sa: str, mesh_seq: int, ethertype: int, ttl: int = 31,
                   extended: int = 0) -> bytes:
    """A group-addressed 802.11s QoS data frame from ``ta`` (FromDS), mesh source ``sa`` in
    addr3, mesh control (flags with ``extended`` addresses, TTL, sequence), LLC/SNAP."""
    bcast = "ff:ff:ff:ff:ff:ff"
    header = (bytes([0x88, 0x02]) + b"\0\0" + mac(bcast) + mac(ta) + mac(sa) + b"\0\0" +
              bytes([0x00, 0x01]))                       # QoS control: mesh control present
    mesh = bytes([extended, ttl]) + struct.pack("<I", mesh_seq) + b"\0" * (6 * extended)
    return header + mesh + bytes([0xAA, 0xAA, 0x03, 0, 0, 0]) + struct.pack(">H", ethertype)


def test_mesh_broadcast_copies_count_each_original_over_its_forwarders(tmp_path):
    from harness.medium.pcap import mesh_broadcast_copies
    C = "02:00:00:00:00:03"
    path = tmp_path / "m.pcap"
    path.write_bytes(pcap(
        record(1000, mesh_broadcast(A, A, 0, 0x0806), no_ack=True),
        record(2000, mesh_broadcast(B, A, 0, 0x0806, ttl=30), no_ack=True),   # forwarded
        record(3000, mesh_broadcast(C, A, 0, 0x0806, ttl=29), no_ack=True),
        record(4000, mesh_broadcast(B, B, 0, 0x86DD), no_ack=True),           # B's own seq 0
        record(5000, mesh_broadcast(C, A, 1, 0x0800, extended=1), no_ack=True),
        record(6000, qos_data(A, B, 7)),                                      # unicast: not counted
        record(7000, ack(A), rate=48)))
    assert mesh_broadcast_copies(path) == {(A, 0, 0x0806): 3, (B, 0, 0x86DD): 1,
                                           (A, 1, 0x0800): 1}
