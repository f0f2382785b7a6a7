"""mediumd end to end: real hwsim radios (created with PERM_ADDR, as the harness does),
two stations in IBSS, the daemon in between.

Runs where mac80211_hwsim exists: in a UML guest (``bin/harness test --
tests/medium/test_daemon_vm.py``) or natively as root (``--engine native``).
What it shows: frames cross the medium (ping, TCP), the control socket changes the
world during a run (no link -> 100% loss; back to the model -> traffic again; a radio
moved out of range -> loss), stats count what happened, SIGTERM writes the stats file
and exits 0, and the pcap holds the attempts.
"""
from __future__ import annotations

import json
import signal
import socket
import subprocess
import time

import pytest

from harness.medium.build import ensure_mediumd
from harness.medium.control import MediumControl, MediumControlError
from harness.net.network import Network
from harness.net.topo import Topology
from harness.traffic.flows import ping, run_iperf

pytestmark = pytest.mark.emulation


def config_for(net: Network) -> str:
    lines = ["seed 1", "propagation free_space"]
    for r in net.radios:
        x, y, z = r.position
        lines.append(f"radio {r.mac} name {r.node} pos {x} {y} {z} phy {r.phy_mode} txpower 15")
    return "\n".join(lines) + "\n"


@pytest.fixture
def medium_pair(tmp_path):
    """sta1 and sta2 50 m apart at 11 Mbit/s, mediumd registered before they join."""
    binary = ensure_mediumd()
    topo = Topology("mdpair")
    topo.add_station("sta1", (0, 0), rate=11)
    topo.add_station("sta2", (50, 0), rate=11)
    net = Network(topo, medium="none")
    proc = None
    try:
        net.start()
        conf = tmp_path / "medium.conf"
        conf.write_text(config_for(net))
        paths = dict(sock=tmp_path / "ctl.sock", pcap=tmp_path / "medium.pcap",
                     stats=tmp_path / "stats.json", log=tmp_path / "mediumd.log")
        log = open(paths["log"], "w")
        proc = subprocess.Popen([str(binary), "-c", str(conf), "--control", str(paths["sock"]),
                                 "--pcap", str(paths["pcap"]), "--stats-out", str(paths["stats"]),
                                 "--log-level", "info"], stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while not paths["sock"].exists():
            assert proc.poll() is None, paths["log"].read_text()
            assert time.monotonic() < deadline, "mediumd did not create its control socket"
            time.sleep(0.05)
        yield net, proc, paths
    finally:
        if proc is not None and proc.poll() is None:
            proc.kill()
            proc.wait()
        net.stop()


def test_frames_cross_the_medium_and_control_changes_the_world(medium_pair):
    net, proc, paths = medium_pair
    a, b = (r.mac for r in net.radios)
    assert oct(paths["sock"].stat().st_mode & 0o777) == "0o600"

    first = ping(net, "sta1", "sta2", count=10)
    assert first.received >= 9, first

    with MediumControl(str(paths["sock"])) as ctl:
        stats = ctl.stats()
        assert stats["frames"]["in"] > 0 and stats["frames"]["out"] > 0, stats["frames"]
        assert stats["frames"]["unknown_radio"] == 0
        links = {(l["tx"], l["rx"]): l for l in stats["links"]}
        assert links[(a, b)]["successes"] > 0 and links[(a, b)]["airtime_us"] > 0, links
        assert {r["mac"] for r in stats["radios"]} == {a, b}
        assert stats["lag_us"]["count"] > 0

        ctl.set_link(a, b, none=True)
        assert ctl.get_link(a, b)["rx_power_dbm"] is None
        cut = ping(net, "sta1", "sta2", count=5)
        assert cut.received == 0, cut

        ctl.set_link(a, b, model=True)
        back = ping(net, "sta1", "sta2", count=10)
        assert back.received >= 8, back

        ctl.set_position(b, 1e6, 0, 0)  # 1000 km: far below any sensitivity
        far = ping(net, "sta1", "sta2", count=5)
        assert far.received == 0, far
        ctl.set_position(b, 50, 0, 0)

        with pytest.raises(MediumControlError, match="no radio"):
            ctl.set_position("02:00:00:00:99:00", 0, 0)

    # framing: two requests in one write, a bad line, a line split across writes
    raw = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    raw.settimeout(5)
    raw.connect(str(paths["sock"]))
    raw.sendall(b'{"cmd":"ping"}\n{"cmd":"get_link","a":"%s","b":"%s"}\n{"cmd":\n{"cmd":"pi'
                % (a.encode(), b.encode()))
    time.sleep(0.2)
    raw.sendall(b'ng","extra":1}\n')
    replies = b""
    while replies.count(b"\n") < 4:
        chunk = raw.recv(4096)
        assert chunk, replies
        replies += chunk
    raw.close()
    r = [json.loads(line) for line in replies.splitlines()]
    assert r[0] == {"ok": True}
    assert r[1]["ok"] and r[1]["rx_power_dbm"] < -30
    assert r[2]["ok"] is False and "bad JSON" in r[2]["error"]
    assert r[3] == {"ok": False, "error": 'unknown key "extra"'}

    # the network does not know of the mediumd this test started: a pace above the medium's
    # rate tells the harness's unshaped-path check the flow is bounded
    flow = run_iperf(net, "sta1", "sta2", duration=4, bitrate="20M")
    print(f"\nTCP through mediumd at 11 Mbit/s: {flow.throughput_mbps:.2f} Mbit/s")
    # 802.11b at 11 Mbit/s carries at most ~6 Mbit/s of TCP: the medium, not hwsim, limits it
    assert 0.5 < flow.throughput_mbps < 7.5, flow

    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=10) == 0, paths["log"].read_text()
    final = json.loads(paths["stats"].read_text())
    assert final["frames"]["in"] >= stats["frames"]["in"]
    assert final["lag_us"]["p99"] >= final["lag_us"]["p50"] >= 0
    print("lag us:", final["lag_us"])
    pcap = paths["pcap"].read_bytes()
    assert pcap[:4] == bytes.fromhex("4d3cb2a1") and len(pcap) > 10000
