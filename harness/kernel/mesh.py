"""What the kernel says about an 802.11s mesh through ``iw``: the path table
(``iw dev X mpath dump``) and the peer links with their airtime metric (``iw dev X station
dump``), parsed (pure) and read from a node in one process each.

Why parse text: iw is the tool the paper used, and its output is what a reader can check by
hand. Two traps (docs/kernel.md, "Mesh paths and metrics"): iw prints a metric of
0xffffffff (a blocked or unusable link) as -1, and prints the expected throughput scaled by
1000/1024 with the fraction not zero-padded ("%u.%u", so 18.59 means 18.059).
"""
from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Dict, List, Optional, Sequence

from harness.errors import HarnessError
from harness.kernel import wireless

if TYPE_CHECKING:
    from harness.kernel.netns import Node

#: nl80211's path flag of an active path (``mpath dump``'s FLAGS column).
MPATH_ACTIVE = 0x01

_MAC = re.compile(r"[0-9a-f]{2}(:[0-9a-f]{2}){5}")


@dataclass(frozen=True)
class MeshPath:
    """One entry of a mesh point's path table."""

    destination: str
    next_hop: str
    metric: int
    hops: int
    flags: int = MPATH_ACTIVE
    sn: int = 0

    @property
    def active(self) -> bool:
        return bool(self.flags & MPATH_ACTIVE)

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class Peer:
    """One peer of a mesh point as ``station dump`` shows it."""

    mac: str
    plink: str                            # ESTAB, BLOCKED, LISTEN, ...
    airtime_metric: Optional[int]         # None: the kernel's maximum (not usable)
    expected_throughput_kbps: Optional[int]
    tx_bitrate_mbps: Optional[float]
    tx_packets: int = 0
    tx_retries: int = 0
    tx_failed: int = 0
    signal_dbm: Optional[float] = None

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def parse_mpath_dump(text: str) -> List[MeshPath]:
    """Rows of ``iw dev X mpath dump`` (or ``mpath get``), by the header's column names."""
    lines = [l for l in text.splitlines() if l.strip()]
    header = next((l for l in lines if "HOP_COUNT" in l or "METRIC" in l), None)
    if header is None:
        return []
    cols = header.replace("DEST ADDR", "DEST_ADDR").replace("NEXT HOP", "NEXT_HOP").split()
    out: List[MeshPath] = []
    for line in lines:
        cells = line.split()
        if line is header or not cells or not _MAC.fullmatch(cells[0]):
            continue
        row = dict(zip(cols, cells))
        try:
            out.append(MeshPath(destination=row["DEST_ADDR"], next_hop=row["NEXT_HOP"],
                                metric=int(row.get("METRIC", "0")),
                                hops=int(row.get("HOP_COUNT", "0")),
                                flags=int(row.get("FLAGS", "0x1"), 0),
                                sn=int(row.get("SN", "0"))))
        except (KeyError, ValueError):
            continue
    return out


def expected_throughput_kbps(printed: str) -> Optional[int]:
    """The kernel's expected throughput (kbit/s) from iw's ``18.859Mbps``: iw prints
    ``thr * 1000 / 1024`` as ``%u.%u`` (integer and remainder of a division by 1000, the
    remainder not zero-padded), so the digits after the point are an integer of kbit/s/1.024."""
    m = re.match(r"\s*(\d+)\.(\d+)\s*Mbps", printed)
    if not m:
        return None
    shown = int(m.group(1)) * 1000 + int(m.group(2))
    return round(shown * 1024 / 1000)


def _int(value: str) -> int:
    m = re.match(r"\s*(-?\d+)", value)
    return int(m.group(1)) if m else 0


def parse_station_dump(text: str) -> Dict[str, Peer]:
    """``iw dev X station dump`` (or ``station get``): one ``Peer`` per ``Station`` block."""
    out: Dict[str, Peer] = {}
    blocks = re.split(r"^Station ", text, flags=re.M)
    for block in blocks[1:]:
        mac = block.split()[0].lower()
        if not _MAC.fullmatch(mac):
            continue
        parts = (line.strip().partition(":") for line in block.splitlines()[1:])
        fields = {key.strip(): value.strip() for key, sep, value in parts if sep}
        metric = fields.get("mesh airtime link metric")
        m = _int(metric) if metric is not None else None
        rate = re.match(r"([\d.]+)\s*MBit/s", fields.get("tx bitrate", ""))
        signal = re.match(r"(-?\d+)", fields.get("signal", ""))
        out[mac] = Peer(mac=mac, plink=fields.get("mesh plink", ""),
                        airtime_metric=m if m is not None and m >= 0 else None,
                        expected_throughput_kbps=expected_throughput_kbps(
                            fields.get("expected throughput", "")),
                        tx_bitrate_mbps=float(rate.group(1)) if rate else None,
                        tx_packets=_int(fields.get("tx packets", "0")),
                        tx_retries=_int(fields.get("tx retries", "0")),
                        tx_failed=_int(fields.get("tx failed", "0")),
                        signal_dbm=float(signal.group(1)) if signal else None)
    return out


def read_paths(node: Node, intf: str) -> List[MeshPath]:
    """The node's path table now."""
    return parse_mpath_dump(node.cmd(["iw", "dev", intf, "mpath", "dump"]).stdout)


def read_peers(node: Node, intf: str) -> Dict[str, Peer]:
    """The node's peers and their links now."""
    return parse_station_dump(node.cmd(["iw", "dev", intf, "station", "dump"]).stdout)


def establish_peer_links(node: Node, intf: str, macs: Sequence[str], timeout: float = 15.0,
                         poll: float = 0.2) -> Dict[str, int]:
    """Wait until the peer link to every MAC in ``macs`` is ESTAB, opening again each one that
    fell back to LISTEN; returns how often each MAC was opened again (none: not listed).

    Why: with peer links opened by hand (``mesh_auto_open_plinks=0``) the kernel sends an
    Open a few times and, when none is answered, holds and returns to LISTEN for good. With a
    retry limit of 1 one collision of the two ends' peering frames is enough (seen in lab 5:
    sta3-sta4 stayed LISTEN, and every flow over it failed with "No route to host"). Waiting
    here before the next mesh point opens its own links also keeps a link's two ends from
    opening at the same moment (docs/kernel.md, "Mesh peer links")."""
    want = [m.lower() for m in macs]
    reopened: Dict[str, int] = {}
    deadline = time.monotonic() + timeout
    while True:
        peers = read_peers(node, intf)
        states = {mac: peers[mac].plink if mac in peers else "not heard" for mac in want}
        waiting = [mac for mac, state in states.items() if state != "ESTAB"]
        if not waiting:
            return reopened
        if time.monotonic() > deadline:
            left = ", ".join(f"{mac} ({states[mac]})" for mac in waiting)
            raise HarnessError(f"[{node.name}] mesh peer links not established within "
                               f"{timeout:g} s: {left}")
        again = [mac for mac in waiting if states[mac] == "LISTEN"]
        if again:
            node.script(wireless.plink_lines(intf, again, []), check=False)
            for mac in again:
                reopened[mac] = reopened.get(mac, 0) + 1
        time.sleep(poll)
