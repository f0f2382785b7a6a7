"""A run killed with SIGKILL leaves namespaces, processes and the medium's run directory;
``harness clean`` removes them (through the modules' registered clean-ups)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.kernel import hwsim, naming
from harness.kernel.cleanup import clean, harness_objects_left
from harness.kernel.netns import Node

pytestmark = pytest.mark.emulation
ROOT = Path(__file__).resolve().parents[2]

CHILD = """
import sys, time
from harness.net.network import Network
from harness.net.topo import Topology
t = Topology("victim")
t.add_station("sta1", (0, 0)); t.add_station("sta2", (10, 0))
net = Network(t).start()  # with the medium: its run directory is left behind too
net["sta1"].popen(["sleep", "600"])
net["sta2"].popen(["iperf3", "-s"])
print("READY", net.tag, flush=True)
time.sleep(600)
"""


def test_sigkill_then_harness_clean():
    child = subprocess.Popen([sys.executable, "-c", CHILD], cwd=ROOT, stdout=subprocess.PIPE,
                             text=True)
    try:
        line = child.stdout.readline()
        assert line.startswith("READY"), line
        tag = line.split()[1]
        assert harness_objects_left(tag)
        os.kill(child.pid, signal.SIGKILL)
        child.wait(10)
        time.sleep(0.5)
        left = harness_objects_left(tag)
        assert any(x.startswith("netns") for x in left), left
        assert any(x.startswith("medium run directory") for x in left), left
        out = subprocess.run([sys.executable, "-m", "harness", "clean"], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert out.returncode == 0, out.stdout + out.stderr
        assert f"removed namespace: hx-{tag}-sta1" in out.stdout
        assert f"removed medium run directory: /tmp/hx-{tag}-medium-" in out.stdout
        assert harness_objects_left(tag) == []
        again = subprocess.run([sys.executable, "-m", "harness", "clean"], cwd=ROOT,
                               capture_output=True, text=True, timeout=60)
        assert "nothing to clean" in again.stdout
    finally:
        if child.poll() is None:
            child.kill()


def test_clean_removes_radios_in_root_and_in_namespaces():
    tag = naming.new_tag()
    hwsim.load_module()
    with hwsim.Hwsim() as conn:  # radios that outlive their creator (no destroy-on-close)
        conn.new_radio(naming.radio_name(tag, "loose", 0), naming.radio_mac(900, 0))
        moved = naming.radio_name(tag, "held", 0)
        conn.new_radio(moved, naming.radio_mac(901, 0))
    node = Node("held", naming.netns_name(tag, "held"), tag)
    node.create()
    hwsim.move_phy(hwsim.phy_of(moved, naming.radio_mac(901, 0)), node.netns)
    report = clean(tag)
    assert sorted(report.of("radio")) == sorted([naming.radio_name(tag, "loose", 0), moved])
    assert report.of("namespace") == [node.netns]
    assert harness_objects_left(tag) == []
