"""The daemon's pcap writer (mediumd/daemon/pcap.c), read back byte by byte.

``mediumd/daemon/tests/test_pcap.c`` writes three known attempts; this test decodes
the file with ``struct`` exactly as Wireshark would (pcap nanosecond header,
LINKTYPE_IEEE802_11_RADIOTAP, radiotap fields in bit order with alignment).
"""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path

import pytest

MEDIUMD = Path(__file__).resolve().parents[2] / "mediumd"

# radiotap present bits written by pcap.c, and the header length they imply
PRESENT = (1 << 1) | (1 << 2) | (1 << 3) | (1 << 5) | (1 << 15) | (1 << 17)
RT_LEN = 19
D = bytes.fromhex("020000000004")   # test_capture.c's radio d: sends behind RTS/CTS


def build_test_program(tmp_path_factory, name: str) -> Path:
    """Build mediumd/daemon/tests/<name>.c outside the checkout (a guest sharing the
    checkout must not write into it); the build directory is shared by the session."""
    if shutil.which("make") is None or shutil.which("cc") is None:
        pytest.skip("needs make and a C compiler")
    build_dir = tmp_path_factory.getbasetemp() / "mediumd-build"
    target = build_dir / "daemon" / "tests" / name
    proc = subprocess.run(["make", "-C", str(MEDIUMD), f"BUILD={build_dir}", str(target)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return target


@pytest.fixture(scope="module")
def pcap_file(tmp_path_factory) -> bytes:
    program = build_test_program(tmp_path_factory, "test_pcap")
    out = tmp_path_factory.mktemp("pcap")
    run = subprocess.run([str(program), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    return (out / "attempts.pcap").read_bytes()


def records(data: bytes):
    off = 24
    while off < len(data):
        sec, nsec, caplen, origlen = struct.unpack_from("<IIII", data, off)
        off += 16
        yield sec, nsec, caplen, origlen, data[off:off + caplen]
        off += caplen
    assert off == len(data), "trailing bytes after the last record"


def radiotap(pkt: bytes) -> dict:
    version, _pad, length, present = struct.unpack_from("<BBHI", pkt, 0)
    assert version == 0 and length == RT_LEN and present == PRESENT
    flags, rate, freq, chflags, signal = struct.unpack_from("<BBHHb", pkt, 8)
    # offset 15 is padding: TX_FLAGS is 2-byte aligned
    tx_flags, retries = struct.unpack_from("<HB", pkt, 16)
    return dict(flags=flags, rate=rate, freq=freq, chflags=chflags, signal=signal,
                tx_flags=tx_flags, retries=retries, frame=pkt[length:])


def test_global_header(pcap_file):
    magic, major, minor, zone, sigfigs, snaplen, linktype = struct.unpack_from(
        "<IHHiIII", pcap_file, 0)
    assert magic == 0xA1B23C4D  # nanosecond timestamps
    assert (major, minor, zone, sigfigs) == (2, 4, 0, 0)
    assert snaplen == 65535
    assert linktype == 127  # LINKTYPE_IEEE802_11_RADIOTAP


def test_records_carry_rate_channel_signal_and_fate(pcap_file):
    recs = list(records(pcap_file))
    assert len(recs) == 3
    times = [sec * 10**9 + nsec for sec, nsec, *_ in recs]
    # monotonic -> wall clock keeps the spacing of the attempts exactly
    assert times[1] - times[0] == 1_500_000
    assert times[2] - times[0] == 2_000_000
    for _sec, nsec, caplen, origlen, _pkt in recs:
        assert nsec < 10**9 and caplen == origlen

    ok, retry, group = (radiotap(r[4]) for r in recs)

    assert ok == dict(ok, flags=0, rate=22, freq=2412, chflags=0x0080 | 0x0020,
                      signal=-61, tx_flags=0, retries=0)
    assert len(ok["frame"]) == 24 and ok["frame"][:2] == b"\x08\x00"

    # second attempt: failed (bad-FCS flag + TX_FAIL), short preamble, RTS/CTS
    assert retry["flags"] == 0x40 | 0x02
    assert retry["tx_flags"] == 0x0001 | 0x0004
    assert retry["retries"] == 1

    # group frame at 54 Mbit/s on 5180 MHz: OFDM, 5 GHz, no ACK, no signal
    assert group["rate"] == 108 and group["freq"] == 5180
    assert group["chflags"] == 0x0100 | 0x0040
    assert group["tx_flags"] == 0x0008 and group["signal"] == -128
    assert len(group["frame"]) == 10


# ---- capture.c: fates of attempts, against the real core in virtual time ----------------

@pytest.fixture(scope="module")
def capture_run(tmp_path_factory):
    program = build_test_program(tmp_path_factory, "test_capture")
    out = tmp_path_factory.mktemp("capture")
    run = subprocess.run([str(program), str(out)],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    import json
    report = json.loads(run.stdout.splitlines()[0])
    recs = [(sec * 10**9 + nsec, radiotap(pkt)) for sec, nsec, _c, _o, pkt in
            records((out / "capture.pcap").read_bytes())]
    return report, recs


def test_capture_records_every_attempt_with_its_fate(capture_run):
    report, recs = capture_run
    times = [t for t, _ in recs]
    assert times == sorted(times), "records out of time order"

    # a's and c's frames; d's RTS/CTS exchanges are checked below
    data = [r for _, r in recs if r["frame"][0] == 0x08 and r["frame"][10:16] != D]
    acks = [r for _, r in recs if r["frame"][0] == 0xD4 and r["frame"][4:10] != D]
    unicast = [r for r in data if not r["tx_flags"] & 0x0008]
    group = [r for r in data if r["tx_flags"] & 0x0008]
    acked_unicast = report["acked"] - report["broadcast"]  # broadcasts count as "sent"

    # one record per attempt the core reported
    assert len(unicast) + len(group) == report["attempts"]
    assert len(group) == report["broadcast"]
    assert all(r["flags"] & 0x40 == 0 and r["signal"] == -128 for r in group)
    # a's frames to b lose half their attempts; b's ACKs are never lost, so an
    # attempt succeeded exactly when an ACK followed it
    ok = [r for r in unicast if not r["flags"] & 0x40]
    failed = [r for r in unicast if r["flags"] & 0x40]
    assert len(ok) == acked_unicast == len(acks)
    assert all(r["tx_flags"] & 0x0001 for r in failed)
    assert 0.3 < len(failed) / len(unicast) < 0.7, (len(failed), len(unicast))
    assert all(ack["frame"][4:10] == bytes.fromhex("020000000001") for ack in acks)

    # per frame (sequence number): attempts numbered 0..k-1, rate table followed
    # (4 tries at 11 Mbit/s, then 1 Mbit/s), only the last attempt can succeed
    by_seq = {}
    for r in unicast:
        seq = int.from_bytes(r["frame"][22:24], "little") >> 4
        by_seq.setdefault(seq, []).append(r)
    assert len(by_seq) == report["unicast"]
    for seq, tries in by_seq.items():
        assert [t["retries"] for t in tries] == list(range(len(tries))), seq
        assert [t["rate"] for t in tries] == [22 if i < 4 else 2 for i in range(len(tries))]
        assert all(t["flags"] & 0x40 for t in tries[:-1]), seq


def test_only_data_after_a_cts_is_marked_protected(capture_run):
    """d's first rate entry asks for RTS/CTS, its second does not, and half of d's RTS are
    lost: a data PPDU carries the RTS/CTS flag exactly when a CTS to d came just before
    it, so a retry sent plainly after an unanswered RTS is not counted as protected (it
    had been, and a test of the long retry limit then saw frames past it)."""
    report, recs = capture_run
    mine = [r for _, r in recs if r["frame"][0] in (0x08, 0xB4) and r["frame"][10:16] == D
            or r["frame"][0] in (0xC4, 0xD4) and r["frame"][4:10] == D]
    data = [(i, r) for i, r in enumerate(mine) if r["frame"][0] == 0x08]
    after_cts = [r for i, r in data if i > 0 and mine[i - 1]["frame"][0] == 0xC4]
    plain = [r for i, r in data if i == 0 or mine[i - 1]["frame"][0] != 0xC4]
    unanswered = [i for i, r in enumerate(mine) if r["frame"][0] == 0xB4
                  and (i + 1 == len(mine) or mine[i + 1]["frame"][0] != 0xC4)]
    plain_after_unanswered = [r for i, r in data if i > 0 and i - 1 in unanswered]
    text = (f"{len(data)} data PPDUs from d: {len(after_cts)} after a CTS, {len(plain)} "
            f"plain, {len(plain_after_unanswered)} right after an unanswered RTS")
    assert after_cts and plain_after_unanswered, text     # the scene has both cases
    assert all(r["tx_flags"] & 0x0004 for r in after_cts), text
    assert not any(r["tx_flags"] & 0x0004 for r in plain), text
    acked = [r for _, r in recs if r["frame"][0] == 0xD4 and r["frame"][4:10] == D]
    assert len(acked) == report["rts_acked"], text
