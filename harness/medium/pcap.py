"""Read mediumd's capture (``MediumSpec(pcap=...)``): one record per transmission attempt.

Why: the medium's counters say how many attempts and drops a link had; the capture says
what happened to each frame, attempt by attempt. That is what a test of the retry rules
needs, because Linux's rate control decides per frame how many tries it asks for and
which of them go out behind RTS/CTS (minstrel protects its fallback entries), so the
frames of one flow do not all face the same number of tries.

Format (mediumd/daemon/pcap.h): classic pcap with nanosecond timestamps, radiotap
(19-byte header: flags, rate, channel, signal, tx flags, data retries), then the
802.11 frame as sent. RTS, CTS and ACK are synthesised control frames.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterator, List, Tuple, Union

from harness.errors import HarnessError

PCAP_MAGIC_NS = 0xA1B23C4D
LINKTYPE_RADIOTAP = 127
RADIOTAP_LEN = 19

_FLAG_BAD_FCS = 0x40          # radiotap flags: the attempt failed
_TX_FAILED = 0x0001           # radiotap tx flags
_TX_RTS = 0x0004
_TX_NO_ACK = 0x0008

#: (type, subtype) of the frame control field -> the name used here
_KINDS = {(2, 0): "data", (2, 8): "data", (1, 11): "rts", (1, 12): "cts", (1, 13): "ack",
          (0, 8): "beacon"}


@dataclass(frozen=True)
class Attempt:
    """One PPDU on the air as the medium captured it."""

    time_ns: int
    kind: str            # data, rts, cts, ack, beacon, or "type/subtype"
    ra: str              # receiver address (addr1)
    ta: str              # transmitter address (addr2); "" for CTS and ACK
    seq: int             # sequence number of a data frame, else -1
    failed: bool         # no ACK (data) or no response followed
    rts: bool            # a data PPDU sent after RTS/CTS
    no_ack: bool         # group-addressed or no-ACK: one try, counted as sent
    rate_mbps: float
    attempt: int         # the medium's attempt number for this frame, 1 = first


@dataclass
class FrameTries:
    """The data PPDUs of one unicast frame, in order (RTS/CTS exchanges not included)."""

    ta: str
    ra: str
    seq: int
    tries: List[Attempt] = field(default_factory=list)

    @property
    def plain(self) -> List[Attempt]:
        """Data PPDUs sent without RTS: each failure counts on the short retry counter."""
        return [a for a in self.tries if not a.rts]

    @property
    def protected(self) -> List[Attempt]:
        """Data PPDUs sent after a CTS: each failure counts on the long retry counter."""
        return [a for a in self.tries if a.rts]

    @property
    def acked(self) -> bool:
        return bool(self.tries) and not self.tries[-1].failed


def _mac(b: bytes) -> str:
    return ":".join(f"{x:02x}" for x in b)


def read_attempts(path: Union[str, Path]) -> List[Attempt]:
    """All records of a mediumd capture, in time order."""
    return sorted(_records(_read(path)), key=lambda a: a.time_ns)


def mesh_broadcast_copies(path: Union[str, Path]) -> Dict[Tuple[str, int, int], int]:
    """How often each 802.11s group-addressed data frame went on the air, by (mesh source,
    mesh sequence number, ethertype): every mesh point forwards a broadcast once, so a
    frame sent more often than there are mesh points was forwarded again as new (the
    kernel's cache of seen broadcasts missed it, and a flood follows)."""
    copies: Dict[Tuple[str, int, int], int] = {}
    for frame in _frames(_read(path)):
        fc = frame[0]
        if (fc >> 2) & 3 != 2 or not frame[4] & 1 or frame[1] & 3 == 3:
            continue                      # not group-addressed data from one hop (4 addrs)
        hdr = 24 + (2 if fc >> 4 & 8 else 0)
        if len(frame) < hdr + 6:
            continue
        mesh_len = 6 + 6 * (frame[hdr] & 3)        # mesh control with 0-2 extended addresses
        llc = hdr + mesh_len
        if len(frame) < llc + 8:
            continue
        key = (_mac(frame[16:22]), struct.unpack_from("<I", frame, hdr + 2)[0],
               struct.unpack_from(">H", frame, llc + 6)[0])
        copies[key] = copies.get(key, 0) + 1
    return copies


def _read(path: Union[str, Path]) -> bytes:
    data = Path(path).read_bytes()
    if len(data) < 24:
        raise HarnessError(f"{path}: not a pcap file (only {len(data)} bytes)")
    magic, _maj, _min, _zone, _sig, _snap, linktype = struct.unpack_from("<IHHiIII", data, 0)
    if magic != PCAP_MAGIC_NS or linktype != LINKTYPE_RADIOTAP:
        raise HarnessError(f"{path}: not a mediumd capture (magic {magic:#x}, linktype "
                           f"{linktype}; expected {PCAP_MAGIC_NS:#x} and {LINKTYPE_RADIOTAP})")
    return data


def _frames(data: bytes) -> Iterator[bytes]:
    """The 802.11 frame of each record (radiotap stripped)."""
    off = 24
    while off + 16 <= len(data):
        caplen = struct.unpack_from("<I", data, off + 8)[0]
        pkt = data[off + 16:off + 16 + caplen]
        off += 16 + caplen
        if len(pkt) >= RADIOTAP_LEN + 24:
            yield pkt[struct.unpack_from("<H", pkt, 2)[0]:]


def _records(data: bytes) -> Iterator[Attempt]:
    off = 24
    while off + 16 <= len(data):
        sec, nsec, caplen, _orig = struct.unpack_from("<IIII", data, off)
        off += 16
        pkt = data[off:off + caplen]
        off += caplen
        if len(pkt) < RADIOTAP_LEN + 10:
            continue                      # a record cut short by a killed writer
        rt_len = struct.unpack_from("<H", pkt, 2)[0]
        if rt_len != RADIOTAP_LEN:      # the fields below sit at mediumd's fixed offsets
            raise HarnessError(f"radiotap header of {rt_len} bytes at offset {off - caplen}: "
                               f"not mediumd's ({RADIOTAP_LEN})")
        flags, rate = pkt[8], pkt[9]
        tx_flags, retries = struct.unpack_from("<HB", pkt, 16)
        frame = pkt[rt_len:]
        fc = frame[0]
        ftype, subtype = (fc >> 2) & 3, fc >> 4
        is_data = ftype == 2 and len(frame) >= 24
        yield Attempt(
            time_ns=sec * 10**9 + nsec,
            kind=_KINDS.get((ftype, subtype), f"{ftype}/{subtype}"),
            ra=_mac(frame[4:10]),
            ta=_mac(frame[10:16]) if len(frame) >= 16 else "",
            seq=struct.unpack_from("<H", frame, 22)[0] >> 4 if is_data else -1,
            failed=bool(flags & _FLAG_BAD_FCS or tx_flags & _TX_FAILED),
            rts=bool(tx_flags & _TX_RTS),
            no_ack=bool(tx_flags & _TX_NO_ACK),
            rate_mbps=rate / 2,
            attempt=retries + 1)


def frame_tries(attempts: List[Attempt], ta: str, ra: str) -> List[FrameTries]:
    """Unicast data frames ta -> ra with their data PPDUs. A radio serves one frame at a
    time, so a frame's PPDUs are consecutive among ta's data PPDUs to ra: grouping runs
    of one sequence number stays right when the 12-bit number wraps."""
    frames: List[FrameTries] = []
    for a in attempts:
        if a.kind != "data" or a.no_ack or a.ta != ta or a.ra != ra:
            continue
        if not frames or frames[-1].seq != a.seq or not frames[-1].tries[-1].failed:
            frames.append(FrameTries(ta, ra, a.seq))
        frames[-1].tries.append(a)
    return frames
