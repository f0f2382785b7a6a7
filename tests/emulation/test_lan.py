"""The LAN of paper 003 for real: Open vSwitch per run, hostapd, wpa_supplicant, shaped veths.

Each test starts the wired control or the hybrid LAN (``topologies.lan``) with the paper's
medium preset (``office-003``) and checks what the network must do, then that nothing of OVS,
hostapd or wpa_supplicant is left: after a normal stop, after Ctrl-C, and after SIGKILL
followed by ``harness clean``.
"""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import List

import pytest

from harness.kernel import cleanup, shaping
from harness.kernel.cleanup import harness_objects_left
from harness.traffic.flows import ping, run_iperf
from topologies import build
from topologies.geometry import medium_defaults

pytestmark = pytest.mark.emulation
ROOT = Path(__file__).resolve().parents[2]
DAEMONS = ("ovsdb-server", "ovs-vswitchd", "hostapd", "wpa_supplicant")
OFFICE = medium_defaults("office-003")


def daemons_of(tag: str) -> List[str]:
    """OVS, hostapd and wpa_supplicant processes of run ``tag`` (their command line names
    the run's directories), whatever their state."""
    out = []
    for pid in cleanup.pids():
        cmd = cleanup.cmdline(pid)
        if any(d in cmd for d in DAEMONS) and f"hx-{tag}-" in cmd:
            out.append(f"{pid} {cmd[:80]}")
    return out


def test_wired_lan_is_shaped_to_fast_ethernet(make_network):
    net = make_network(build("lan"), medium="none")
    assert ping(net, "client", "server", count=3).received == 3
    sw = net["sw1"]
    assert sw.cmd(["ovs-vsctl", f"--db=unix:{sw.ovs.db_socket}", "get-fail-mode",
                   sw.bridge]).stdout.strip() == "standalone"
    qdisc = net["server"].cmd("tc qdisc show dev eth0").stdout
    assert "netem" in qdisc and "rate 100Mbit packetoverhead 24" in qdisc and "limit 1000" in qdisc
    flow = run_iperf(net, "server", "client", duration=4)
    limit = shaping.goodput_limit_mbps(100.0)
    print(f"\nwired TCP {flow.throughput_mbps:.1f} Mbit/s, Fast Ethernet limit {limit:.2f}")
    assert flow.throughput_mbps <= limit * 1.01  # the shaper holds the link to 100 Mbit/s
    assert not any("/run/openvswitch" in d for d in daemons_of(net.tag))


@pytest.mark.parametrize("security", ["open", "wpa2"])
def test_hybrid_lan_associates_through_the_medium(make_network, security):
    topo = build("lan", wireless=True, security=security,
                 passphrase="harness-psk" if security == "wpa2" else None)
    net = make_network(topo, medium=OFFICE)
    ap, client = net["ap1"], net["client"]
    link = client.cmd(["iw", "dev", "wlan0", "link"]).stdout
    assert "Connected to 02:68:78" in link and f"SSID: hx-{net.tag}-ap1" in link, link
    assert ping(net, "client", "server", count=3).received == 3
    status = ap.cmd(["iw", "dev", "wlan0", "station", "dump"]).stdout
    assert "authorized:\tyes" in status and "54.0 MBit/s" in status, status
    stats = net.medium_stats()
    by_node = {r["node"]: r for r in stats["radios"]}
    assert by_node["client"]["acked"] > 0 and by_node["ap1"]["acked"] > 0  # via the medium
    assert sorted(d.split()[1].split("/")[-1] for d in daemons_of(net.tag)) == \
        ["hostapd", "ovs-vswitchd", "ovsdb-server", "wpa_supplicant"]


CHILD = """
import signal, sys, time
# Ctrl-C as in a terminal: a test session started in the background by a non-interactive
# shell inherits SIGINT ignored, and Python keeps that.
signal.signal(signal.SIGINT, signal.default_int_handler)
from harness.net import Network
from topologies import build
from topologies.geometry import medium_defaults
net = Network(build("lan", wireless=True), medium=medium_defaults("office-003"))
net.start()
print("READY", net.tag, flush=True)
time.sleep(600)
"""


def start_child() -> tuple:
    child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE,
                             text=True)
    line = child.stdout.readline()
    assert line.startswith("READY"), line
    return child, line.split()[1]


def test_ctrl_c_leaves_nothing_of_ovs_or_hostapd():
    child, tag = start_child()
    try:
        assert len(daemons_of(tag)) == 4 and harness_objects_left(tag)
        child.send_signal(signal.SIGINT)
        child.wait(60)
        assert daemons_of(tag) == [] and harness_objects_left(tag) == []
    finally:
        if child.poll() is None:
            child.kill()


def test_sigkill_then_harness_clean_leaves_nothing_of_ovs_or_hostapd():
    child, tag = start_child()
    try:
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        time.sleep(0.5)
        left = harness_objects_left(tag)
        for what in ("OVS run directory", "hostapd run directory", "wpa_supplicant run directory",
                     "netns"):
            assert any(x.startswith(what) for x in left), left
        assert len(daemons_of(tag)) == 4
        out = subprocess.run([sys.executable, "-m", "harness", "clean", "--tag", tag], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        assert f"removed OVS run directory: /tmp/hx-{tag}-ovs-sw1-" in out.stdout
        assert daemons_of(tag) == [] and harness_objects_left(tag) == []
    finally:
        if child.poll() is None:
            child.kill()
