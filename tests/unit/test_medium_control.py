"""harness.medium.control against a real UNIX-socket server speaking mediumd's protocol.

The server thread records every request line it receives and answers from a script,
so these tests check the exact bytes the client sends and how it reads replies
(split across reads, several per connection, errors). mediumd's own side of the
protocol is exercised end to end in the VM (tests/medium/test_daemon_vm.py).
"""
from __future__ import annotations

import json
import socket
import threading
from pathlib import Path

import pytest

from harness.medium.control import MediumControl, MediumControlError

A = "02:00:00:00:01:00"
B = "02:00:00:00:02:00"


class ScriptedServer:
    """Accepts one connection; for each request line sends the next scripted reply
    (bytes, sent in the given chunks)."""

    def __init__(self, path: Path, replies):
        self.path = str(path)
        self.replies = list(replies)
        self.lines = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(self.path)
        self.sock.listen(1)
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        conn, _ = self.sock.accept()
        buf = b""
        with conn:
            while self.replies:
                while b"\n" not in buf:
                    chunk = conn.recv(4096)
                    if not chunk:
                        return
                    buf += chunk
                line, buf = buf.split(b"\n", 1)
                self.lines.append(line)
                for part in self.replies.pop(0):
                    conn.sendall(part)

    def requests(self):
        self.thread.join(timeout=5)
        return [json.loads(line) for line in self.lines]

    def close(self):
        self.sock.close()


@pytest.fixture
def serve(tmp_path):
    servers = []

    def start(*replies):
        srv = ScriptedServer(tmp_path / "ctl.sock", replies)
        servers.append(srv)
        return srv

    yield start
    for srv in servers:
        srv.close()


OK = [b'{"ok":true}\n']


def test_encoding_is_compact_json_line_with_cmd_first():
    line = MediumControl.encode("set_position", radio=A, x=1.0, y=2.5, z=0.0)
    assert line == b'{"cmd":"set_position","radio":"02:00:00:00:01:00","x":1.0,"y":2.5,"z":0.0}\n'


def test_commands_send_the_documented_fields(serve):
    srv = serve(OK, OK, OK, OK, OK, OK, OK)
    with MediumControl(srv.path) as ctl:
        ctl.set_position(A, 10, -3)
        ctl.set_txpower(B, 20)
        ctl.set_retry(A, 9)
        ctl.set_retry(B, 3, 2)
        ctl.set_link(A, B, loss=95)
        ctl.set_link(A, B, none=True, oneway=True)
        ctl.set_link(A, B, snr=12, per=0.1)
    assert srv.requests() == [
        {"cmd": "set_position", "radio": A, "x": 10.0, "y": -3.0, "z": 0.0},
        {"cmd": "set_txpower", "radio": B, "dbm": 20.0},
        {"cmd": "set_retry", "radio": A, "short": 9, "long": 9},
        {"cmd": "set_retry", "radio": B, "short": 3, "long": 2},
        {"cmd": "set_link", "a": A, "b": B, "loss_db": 95.0},
        {"cmd": "set_link", "a": A, "b": B, "none": True, "directed": True},
        {"cmd": "set_link", "a": A, "b": B, "snr_db": 12.0, "per": 0.1},
    ]


def test_capture_start_and_stop_send_path_then_stop(serve):
    srv = serve([b'{"ok":true,"path":"/tmp/x.pcap"}\n'], [b'{"ok":true,"path":"/tmp/x.pcap"}\n'],
                [b'{"ok":false,"error":"no capture is running"}\n'])
    with MediumControl(srv.path) as ctl:
        assert ctl.start_capture("/tmp/x.pcap") == "/tmp/x.pcap"
        assert ctl.stop_capture() == "/tmp/x.pcap"
        with pytest.raises(MediumControlError, match="no capture is running"):
            ctl.stop_capture()
    assert srv.requests() == [{"cmd": "capture", "path": "/tmp/x.pcap"},
                              {"cmd": "capture", "stop": True},
                              {"cmd": "capture", "stop": True}]


def test_stats_reply_split_across_reads_and_pipelined(serve):
    stats = {"ok": True, "frames": {"in": 7, "out": 6}, "lag_us": {"p50": 12.5},
             "links": [{"tx": A, "rx": B, "attempts": 3}]}
    body = json.dumps(stats).encode() + b"\n"
    srv = serve([body[:5], body[5:40], body[40:]], [b'{"ok":true,"rx_power_dbm":null}\n'])
    with MediumControl(srv.path) as ctl:
        got = ctl.stats()
        link = ctl.get_link(A, B)
    assert got == {k: v for k, v in stats.items() if k != "ok"}
    assert link == {"rx_power_dbm": None}
    assert [r["cmd"] for r in srv.requests()] == ["stats", "get_link"]


def test_refusal_raises_with_the_daemons_reason(serve):
    srv = serve([b'{"ok":false,"error":"\\"radio\\": no radio 02:00:00:00:09:00 in the medium"}\n'])
    with MediumControl(srv.path) as ctl:
        with pytest.raises(MediumControlError, match="no radio 02:00:00:00:09:00"):
            ctl.set_position("02:00:00:00:09:00", 0, 0)


def test_garbage_reply_is_an_error(serve):
    srv = serve([b"not json\n"])
    with MediumControl(srv.path) as ctl:
        with pytest.raises(MediumControlError, match="malformed reply"):
            ctl.ping()


def test_connection_closed_before_reply_is_an_error(serve):
    srv = serve([b""])  # the server reads the request, sends nothing, and closes
    with MediumControl(srv.path, timeout=2) as ctl:
        with pytest.raises(MediumControlError, match="closed the control connection"):
            ctl.stats()


def test_set_retry_refuses_what_a_radio_cannot_hold_before_sending(tmp_path):
    """The kernel's rule (1..31, mac80211's limit), though mediumd itself would take 255."""
    ctl = MediumControl(str(tmp_path / "nothing.sock"))
    for bad in (0, 32, 255, 2.5, True):
        with pytest.raises(MediumControlError, match=r"allowed an integer in \[1, 31\]"):
            ctl.set_retry(A, bad)
    with pytest.raises(MediumControlError, match=r"long 32 is invalid"):
        ctl.set_retry(A, 7, 32)


def test_set_link_needs_exactly_one_kind_before_sending(tmp_path):
    ctl = MediumControl(str(tmp_path / "nothing-listens-here"))
    with pytest.raises(MediumControlError, match="exactly one"):
        ctl.set_link(A, B)
    with pytest.raises(MediumControlError, match="exactly one"):
        ctl.set_link(A, B, loss=90, none=True)
    with pytest.raises(MediumControlError, match=r"per 1.5 is invalid: allowed a number in "
                                                 r"\[0, 1\] \(a probability\)"):
        ctl.set_link(A, B, model=True, per=1.5)


def test_unreachable_socket_names_the_path(tmp_path):
    path = tmp_path / "absent.sock"
    with pytest.raises(MediumControlError, match=str(path)):
        MediumControl(str(path)).ping()
