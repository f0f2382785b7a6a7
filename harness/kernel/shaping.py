"""Shaping a wired (veth) link to an Ethernet rate: netem's ``rate`` on each end's egress.

A veth pair carries whatever the CPU can move (about 1 Gbit/s across a switch in the TCG
guest). A link of ``bw`` Mbit/s gets, on the egress of each of its two interfaces (full
duplex: each direction has its own wire), the qdisc

    netem rate <bw>mbit 24 limit <queue>

netem's rate holds every packet for its serialisation time (length x 8 / rate) behind the
packets before it, which is what a link does to a frame; ``24`` adds the bytes Ethernet puts
on the wire besides the frame the kernel sees (preamble and start delimiter 8, FCS 4,
inter-frame gap 12; the 14-byte header is already in the packet's length). So a 1500-byte
IP packet occupies 1538 byte times, and TCP with timestamps (1448-byte payloads) carries at
most 1448 / 1538 x bw: 94.15 Mbit/s on 100 Mbit/s Ethernet. ``limit`` is the queue in
packets in front of the wire, a drop-tail FIFO; the default 1000 is Linux's default
``txqueuelen`` of an Ethernet device, where a sending host's packets wait on a real NIC.
Segmentation offloads (TSO, GSO, GRO) are turned off on shaped interfaces, so netem times
and counts wire-sized packets, not 64 KB aggregates.

The same qdisc also holds packets back without a rate (``delay_lines``): netem delay on a
radio interface's egress, a host's latency between its IP layer and its radio (the
``tx_delay`` policy).

Pure: only builds shell lines and checks values (``harness.net`` and the policies run them in
the nodes).
"""
from __future__ import annotations

from typing import Any, List

from harness.errors import HarnessError
from harness.params import ParamSpec

#: Bytes per frame on an Ethernet wire besides the frame the kernel sees (8 + 4 + 12).
ETHERNET_OVERHEAD = 24
#: Bandwidths the shaper does (Mbit/s). Above 1000 the TCG guest's CPU, not the shaper, would
#: set the rate (an unshaped veth pair across a switch carries about 1 Gbit/s there); below
#: 1 kbit/s a single full-size frame takes 12 s.
MIN_MBIT = 0.001
MAX_MBIT = 1000.0
#: Default queue in front of a shaped link (packets): Linux's txqueuelen of an Ethernet device.
DEFAULT_QUEUE = 1000
MAX_QUEUE = 100000


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def check_bandwidth(bw: Any, where: str = "bw") -> float:
    """A link bandwidth in Mbit/s the shaper can do, or one clear error."""
    if not _number(bw) or not (MIN_MBIT <= float(bw) <= MAX_MBIT):
        raise HarnessError(f"{where} {bw!r} is not a bandwidth the shaper can do: allowed "
                           f"{MIN_MBIT:g}..{MAX_MBIT:g} Mbit/s (netem rate on a veth pair; "
                           "faster than that the guest's CPU would limit the link, not the shaper)")
    return float(bw)


def check_queue(queue: Any, where: str = "queue") -> int:
    if not _number(queue) or not float(queue).is_integer() or not 1 <= queue <= MAX_QUEUE:
        raise HarnessError(f"{where} {queue!r} is invalid: allowed an integer 1..{MAX_QUEUE} "
                           "(packets waiting in front of the shaped link)")
    return int(queue)


def rate_arg(bw_mbit: float) -> str:
    """tc's spelling of a rate, exact to the bit per second."""
    return f"{int(round(bw_mbit * 1e6))}bit"


def shape_lines(intf: str, bw_mbit: float, queue: int = DEFAULT_QUEUE) -> List[str]:
    """Shell lines (inside the interface's namespace) that shape its egress to ``bw_mbit``."""
    bw = check_bandwidth(bw_mbit)
    limit = check_queue(queue)
    return [f"ethtool -K {intf} tso off gso off gro off >/dev/null 2>&1 || true",
            f"tc qdisc replace dev {intf} root netem rate {rate_arg(bw)} {ETHERNET_OVERHEAD} "
            f"limit {limit}"]


def goodput_limit_mbps(bw_mbit: float, mss: int = 1448, mtu: int = 1500) -> float:
    """TCP goodput a shaped link carries at most: payload bytes per wire bytes x rate
    (``mss`` payload in an ``mtu``-byte IP packet, plus the 14-byte header and the overhead)."""
    return bw_mbit * mss / (mtu + 14 + ETHERNET_OVERHEAD)


#: A host latency ``delay_lines`` does (ms): up to far beyond any driver's, short of the
#: 200 ms minimum retransmission timeout.
DELAY_MS = ParamSpec("delay_ms", "float", "ms every packet waits", min=0, max=100,
                     min_exclusive=True)


def check_delay(delay_ms: Any, where: str = "tx_delay") -> float:
    """A delay in ms that ``delay_lines`` does, or one clear error."""
    if not DELAY_MS.accepts(delay_ms):
        raise HarnessError(f"{where} {delay_ms!r} is invalid: allowed {DELAY_MS.allowed()} "
                           "(ms) or null (no delay)")
    return float(delay_ms)


def delay_lines(intf: str, delay_ms: float, queue: int = DEFAULT_QUEUE) -> List[str]:
    """Shell lines (inside the interface's namespace) that hold every packet leaving ``intf``
    for ``delay_ms`` before the driver gets it (netem delay, in order, ``queue`` packets)."""
    delay = check_delay(delay_ms)
    return [f"tc qdisc replace dev {intf} root netem delay {int(round(delay * 1000))}us "
            f"limit {check_queue(queue)}"]
