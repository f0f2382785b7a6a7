"""Bulk transfers: the agent over loopback (real sockets, no root), the flow key, the quick cap,
completion from socket samples, the qdisc dump parser (pure)."""
from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.experiment import schema
from harness.experiment.sweep import QUICK_BYTES, expand
from harness.kernel import qdisc
from harness.traffic.flows import SsSample, completion_s
from harness.traffic.servers import BULK_AGENT, bulk_sender_args

BASE = "name: b\ntopology: {builder: lan}\nflows:\n  - {src: client, dst: server, %s}\n"


def test_the_agent_moves_every_byte_and_the_receiver_times_it(tmp_path):
    port = 47000 + int(time.time()) % 1000
    recv = subprocess.Popen([sys.executable, str(BULK_AGENT), "receive", "127.0.0.1", str(port)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert recv.stdout.readline().strip() == "listening"
        sent = subprocess.run(bulk_sender_args("127.0.0.1", port, 3_000_001, "reno"),
                              capture_output=True, text=True, timeout=60)
        got = json.loads(recv.communicate(timeout=30)[0].splitlines()[-1])
    finally:
        recv.kill()
    sender = json.loads(sent.stdout.splitlines()[-1])
    assert got["bytes"] == 3_000_001 and sender["bytes"] == 3_000_001
    assert sender["congestion"] == "reno" and got["seconds"] > 0
    assert sender["seconds"] >= sender["written_s"]  # waited for the receiver's close


def test_the_agent_reports_errors_as_json():
    out = subprocess.run([sys.executable, str(BULK_AGENT), "send", "127.0.0.1", "1", "10"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 1 and "error" in json.loads(out.stdout)


def test_flow_bytes_parse_drop_when_null_and_refuse_reverse():
    exp = schema.loads(BASE % "bytes: 50M")
    assert exp.base["flows"][0]["bytes"] == 50_000_000
    assert "bytes" not in schema.loads(BASE % "duration: 5").base["flows"][0]  # run ids kept
    assert schema.loads(BASE % "bytes: 800MB").base["flows"][0]["bytes"] == 800_000_000
    with pytest.raises(Exception, match="is not a size"):
        schema.loads(BASE % "bytes: lots")
    with pytest.raises(Exception, match="a bulk transfer is TCP from src to dst"):
        schema.loads(BASE % "bytes: 5M, direction: reverse")


def test_quick_cuts_bulk_transfers_not_their_time_limit():
    exp = schema.loads(BASE % "bytes: 50M, duration: 600")
    flow = expand(exp, quick=True)[0].params["flows"][0]
    assert flow["bytes"] == QUICK_BYTES and flow["duration"] == 600


def _sample(t: float, acked: int) -> SsSample:
    return SsSample(t=t, local="a:1", peer="b:2", congestion="reno", cwnd=10, rtt_ms=1.0,
                    rttvar_ms=0.1, unacked=0, bytes_acked=acked, retrans_total=0, mss=1448)


def test_completion_from_samples_interpolates_and_says_when_it_cannot():
    s = [_sample(0.5, 0), _sample(1.5, 400), _sample(2.5, 1200)]
    assert completion_s(s, 800) == pytest.approx(1.5)  # halfway between 1.5 and 2.5, from 0.5
    assert completion_s(s, 5000) is None


def test_qdisc_dump_parser_takes_the_root_qdisc():
    from pyroute2.netlink.rtnl import RTM_NEWQDISC
    from pyroute2.netlink.rtnl.tcmsg import tcmsg

    def msg(parent: int, kind: str, backlog: int) -> bytes:
        m = tcmsg()
        m["index"], m["parent"], m["handle"] = 3, parent, 0x10000
        m["header"]["type"] = RTM_NEWQDISC
        m["attrs"] = [("TCA_KIND", kind),
                      ("TCA_STATS", {"bytes": 10, "packets": 2, "drop": 1, "overlimits": 0,
                                     "bps": 0, "pps": 0, "qlen": backlog, "backlog": 3000})]
        m.encode()
        return bytes(m.data)

    data = msg(1, "fq_codel", 7) + msg(qdisc.TC_H_ROOT, "mq", 9)
    got = qdisc.parse_root(qdisc.split_messages(data))
    assert got == qdisc.QdiscStats("mq", 9, 3000, 1, 2, 10)
    assert qdisc.dump_request(3, 1)[4:6] == bytes([38, 0])  # RTM_GETQDISC


def test_agent_file_is_standalone():
    text = Path(BULK_AGENT).read_text()
    assert "import harness" not in text and "from harness" not in text
