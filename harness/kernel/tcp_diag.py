"""TCP sockets of a namespace with their ``tcp_info``, over NETLINK_SOCK_DIAG (what ``ss -ti``
reads), from this process.

Why not ``ss``: under TCG every process costs ~60 ms of guest CPU, and a sampler that forks
``ss`` twice a second per flow takes CPU from the medium it measures (its lag grew to a p99 of
40 ms with six flows). A netlink dump costs well under a millisecond.

Layouts are the kernel's stable ABI (``linux/inet_diag.h``, ``linux/tcp.h``): fields are only
ever appended, so offsets below hold for every kernel that has them; a shorter ``tcp_info``
(older kernel) leaves the later fields ``None``.
"""
from __future__ import annotations

import socket
import struct
from dataclasses import dataclass
from typing import Dict, List, Optional, Tuple

from harness.errors import HarnessError
from harness.kernel.netns import NLMSGHDR, ack_code, netlink_socket_in, split_messages

NETLINK_SOCK_DIAG = 4
SOCK_DIAG_BY_FAMILY = 20
NLM_F_REQUEST, NLM_F_DUMP = 0x1, 0x300
NLMSG_ERROR, NLMSG_DONE = 2, 3
INET_DIAG_INFO, INET_DIAG_CONG = 2, 4
TCP_ESTABLISHED = 1
#: States of a socket whose sender closed or is closing while data may still be in flight
#: (FIN_WAIT1, FIN_WAIT2, CLOSE_WAIT, LAST_ACK, CLOSING): its tcp_info still counts.
CLOSING_STATES = (4, 5, 8, 9, 11)

#: inet_diag_req_v2: family, protocol, ext, pad, states, then inet_diag_sockid.
_REQ = struct.Struct("=BBBBI")
_SOCKID = struct.Struct("!HH16s16sI8s")  # ports and addresses are network order
#: inet_diag_msg: family, state, timer, retrans, sockid, expires, rqueue, wqueue, uid, inode.
_MSG_HEAD = struct.Struct("=BBBB")
_MSG_TAIL = struct.Struct("=IIIII")
_RTA = struct.Struct("=HH")

#: (name, byte offset, struct format) of the tcp_info fields the harness reads.
TCP_INFO_FIELDS = (
    ("ca_state", 1, "B"), ("unacked", 24, "I"), ("sacked", 28, "I"), ("lost", 32, "I"),
    ("retrans", 36, "I"), ("rtt_us", 68, "I"), ("rttvar_us", 72, "I"),
    ("snd_ssthresh", 76, "I"), ("snd_cwnd", 80, "I"), ("snd_mss", 16, "I"),
    ("total_retrans", 100, "I"), ("bytes_acked", 120, "Q"),
    # the retransmission timer: its timeout, how often it has backed off, and how long ago
    # the socket last sent data and last heard an ACK (a flow that sits still: lost or held?)
    ("backoff", 4, "B"), ("rto_us", 8, "I"), ("last_data_sent_ms", 44, "I"),
    ("last_ack_recv_ms", 56, "I"),
)


@dataclass
class TcpSocket:
    """One TCP socket: endpoints as ``ss`` prints them, its congestion module and tcp_info."""

    local: str
    peer: str
    state: int
    congestion: Optional[str]
    info: Dict[str, Optional[int]]
    #: inet_diag's pending timer (1 retransmission/probe, 2 keepalive, 4 zero-window probe,
    #: 0 none) and the milliseconds until it fires (0 when overdue).
    timer: Optional[int] = None
    timer_ms: Optional[int] = None

    @property
    def ports(self) -> Tuple[int, int]:
        return int(self.local.rsplit(":", 1)[1]), int(self.peer.rsplit(":", 1)[1])


def dump_request(seq: int = 1, states: int = 1 << TCP_ESTABLISHED) -> bytes:
    """The SOCK_DIAG_BY_FAMILY dump request for IPv4 TCP sockets in ``states``, asking for
    tcp_info and the congestion module name (pure)."""
    ext = (1 << (INET_DIAG_INFO - 1)) | (1 << (INET_DIAG_CONG - 1))
    body = (_REQ.pack(socket.AF_INET, socket.IPPROTO_TCP, ext, 0, states)
            + _SOCKID.pack(0, 0, b"", b"", 0, b"\xff" * 8))
    return NLMSGHDR.pack(NLMSGHDR.size + len(body), SOCK_DIAG_BY_FAMILY,
                          NLM_F_REQUEST | NLM_F_DUMP, seq, 0) + body


def parse_tcp_info(raw: bytes) -> Dict[str, Optional[int]]:
    return {name: struct.unpack_from("=" + fmt, raw, offset)[0]
            if len(raw) >= offset + struct.calcsize(fmt) else None
            for name, offset, fmt in TCP_INFO_FIELDS}


def parse_socket(payload: bytes) -> TcpSocket:
    """One inet_diag_msg with its attributes (pure)."""
    family, state, timer, _retrans = _MSG_HEAD.unpack_from(payload, 0)
    sport, dport, src, dst, _if, _cookie = _SOCKID.unpack_from(payload, _MSG_HEAD.size)
    expires = _MSG_TAIL.unpack_from(payload, _MSG_HEAD.size + _SOCKID.size)[0]
    off = _MSG_HEAD.size + _SOCKID.size + _MSG_TAIL.size
    size = 4 if family == socket.AF_INET else 16
    fam = socket.AF_INET if family == socket.AF_INET else socket.AF_INET6
    local = f"{socket.inet_ntop(fam, src[:size])}:{sport}"
    peer = f"{socket.inet_ntop(fam, dst[:size])}:{dport}"
    info: Dict[str, Optional[int]] = parse_tcp_info(b"")
    cong: Optional[str] = None
    while off + _RTA.size <= len(payload):
        length, kind = _RTA.unpack_from(payload, off)
        if length < _RTA.size:
            break
        data = payload[off + _RTA.size:off + length]
        if kind == INET_DIAG_INFO:
            info = parse_tcp_info(data)
        elif kind == INET_DIAG_CONG:
            cong = data.split(b"\0", 1)[0].decode(errors="replace") or None
        off += (length + 3) & ~3
    return TcpSocket(local, peer, state, cong, info, timer=timer,
                     timer_ms=expires if timer else None)


def parse_dump(data: bytes) -> Tuple[List[TcpSocket], bool]:
    """Sockets in one read of the dump, and whether NLMSG_DONE ended it (pure)."""
    out: List[TcpSocket] = []
    for kind, _seq, raw in split_messages(data):
        if kind == NLMSG_DONE:
            return out, True
        if kind == NLMSG_ERROR:
            raise HarnessError(f"sock_diag dump failed: error {ack_code(raw)}")
        if kind == SOCK_DIAG_BY_FAMILY:
            out.append(parse_socket(raw[NLMSGHDR.size:]))
    return out, False


class DiagSocket:
    """A sock_diag socket opened inside a namespace (it keeps answering for that namespace)."""

    def __init__(self, netns: Optional[str] = None):
        self.sock = netlink_socket_in(netns, NETLINK_SOCK_DIAG)
        self.sock.settimeout(5.0)
        self.seq = 0

    def sockets(self, states: int) -> List[TcpSocket]:
        """Every IPv4 TCP socket of the namespace in ``states`` (a bit mask), with tcp_info."""
        self.seq += 1
        self.sock.send(dump_request(self.seq, states))
        out: List[TcpSocket] = []
        while True:
            part, done = parse_dump(self.sock.recv(65536))
            out += part
            if done:
                return out

    def close(self) -> None:
        self.sock.close()
