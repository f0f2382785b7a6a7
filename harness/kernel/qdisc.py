"""A network interface's root qdisc statistics, read over rtnetlink from inside its namespace:
no process per reading (each costs ~60 ms of guest CPU under TCG).

The root qdisc's counters cover its children (``mq`` sums its per-queue ``fq_codel``s), so one
reading says how many packets wait in front of the interface and how many were dropped there.
The request is a plain ``RTM_GETQDISC`` dump on a netlink socket opened in the namespace
(``netns.socket_in``), decoded with pyroute2's ``tcmsg`` (its ``IPRoute`` is not bound to the
namespace of the thread that makes it).
"""
from __future__ import annotations

import contextlib
import socket
from dataclasses import asdict, dataclass
from typing import Any, Dict, Iterable, List, Optional

from pyroute2.netlink import NLM_F_DUMP, NLM_F_REQUEST, NLMSG_DONE, NLMSG_ERROR
from pyroute2.netlink.rtnl import RTM_GETQDISC, RTM_NEWQDISC
from pyroute2.netlink.rtnl.tcmsg import tcmsg

from harness.errors import HarnessError
from harness.kernel.netns import ack_code, entered, socket_in
from harness.kernel.netns import split_messages as netlink_messages

#: The parent handle of a root qdisc.
TC_H_ROOT = 0xFFFFFFFF
NETLINK_ROUTE = 0


@dataclass
class QdiscStats:
    kind: str
    backlog_packets: int
    backlog_bytes: int
    drops: int
    packets: int
    bytes: int

    def to_dict(self) -> Dict[str, Any]:
        return asdict(self)


def parse_root(messages: Iterable[Any]) -> Optional[QdiscStats]:
    """The root qdisc among decoded ``tcmsg`` messages (pure)."""
    for msg in messages:
        if msg.get("parent") != TC_H_ROOT:
            continue
        st = msg.get_attr("TCA_STATS") or {}
        return QdiscStats(kind=str(msg.get_attr("TCA_KIND")),
                          backlog_packets=int(st.get("qlen", 0)),
                          backlog_bytes=int(st.get("backlog", 0)), drops=int(st.get("drop", 0)),
                          packets=int(st.get("packets", 0)), bytes=int(st.get("bytes", 0)))
    return None


def dump_request(index: int, seq: int) -> bytes:
    msg = tcmsg()
    msg["index"] = index
    msg["header"]["type"] = RTM_GETQDISC
    msg["header"]["flags"] = NLM_F_REQUEST | NLM_F_DUMP
    msg["header"]["sequence_number"] = seq
    msg.encode()
    return bytes(msg.data)


def split_messages(data: bytes) -> List[tcmsg]:
    """``RTM_NEWQDISC`` messages of one netlink datagram, decoded (pure); raises on an error."""
    out = []
    for kind, _seq, raw in netlink_messages(data):
        if kind == NLMSG_ERROR and ack_code(raw):
            raise HarnessError(f"qdisc dump failed: errno {-ack_code(raw)}")
        if kind == RTM_NEWQDISC:
            msg = tcmsg(raw)
            msg.decode()
            out.append(msg)
    return out


class QdiscReader:
    """Reads root qdisc statistics of interfaces of one namespace (one netlink socket)."""

    def __init__(self, netns: Optional[str] = None):
        self.netns = netns
        self._sock = socket_in(netns, socket.AF_NETLINK, socket.SOCK_RAW, NETLINK_ROUTE)
        self._sock.settimeout(5.0)
        self._index: Dict[str, int] = {}
        self._seq = 0

    def _ifindex(self, ifname: str) -> Optional[int]:
        if ifname not in self._index:
            try:
                with entered(self.netns) if self.netns is not None else contextlib.nullcontext():
                    self._index[ifname] = socket.if_nametoindex(ifname)
            except OSError:
                return None
        return self._index[ifname]

    def read(self, ifname: str) -> Optional[QdiscStats]:
        index = self._ifindex(ifname)
        if index is None:
            return None
        self._seq += 1
        self._sock.send(dump_request(index, self._seq))
        messages: List[tcmsg] = []
        while True:
            data = self._sock.recv(65536)
            if not data:
                break
            messages += [m for m in split_messages(data) if m.get("index") == index]
            if any(kind == NLMSG_DONE for kind, _seq, _raw in netlink_messages(data)):
                break
        return parse_root(messages)

    def close(self) -> None:
        self._sock.close()

