"""Scripts written the way Mininet-WiFi's examples are, run unchanged (their own import lines)
with ``harness cli SCRIPT``, their ``CLI(net)`` typed at through a pseudo-terminal.

- ad hoc (tests/compat/scripts/adhoc_chain.py): three IBSS stations 40 m apart with a
  log-distance exponent of 4: neighbours reach each other, sta1 does not reach sta3 (no
  routing, as in Mininet-WiFi), IPv6 set by the script works, and ``py sta3.setPosition``
  moves sta3 into sta1's range in the medium at once;
- mesh (tests/compat/scripts/mesh_chain.py): the same line as 802.11s mesh points: HWMP
  carries sta1's pings to sta3 through sta2;
- access points (ap_wired.py: stations associate by themselves, a host wired to the access
  point; ap_switch_wpa2.py: WPA2, the access point behind a switch, a shaped wire, a
  controller): the stations reach the wired host through the access point.
- moving stations (mobility.py): mobility() start/stop replays (sta1 on its line, sta3
  standing, a moving node cannot be teleported), and with -m a random waypoint model that
  keeps each station in its own area; ``nodes`` shows where they are.
After ``exit`` the script goes on to ``net.stop()``; nothing of the network is left.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from pty_terminal import Terminal

from harness.kernel.cleanup import harness_objects_left

pytestmark = pytest.mark.emulation

ROOT = Path(__file__).resolve().parents[2]
SCRIPTS = ROOT / "tests" / "compat" / "scripts"
PROMPT = r"harness> "
START_S = 7200.0  # virtual seconds in the guest (see tests/emulation/test_cli.py)
STEP_S = 3600.0


def run_script(tmp_path: Path, script: str, *args: str) -> Terminal:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return Terminal.spawn([sys.executable, "-m", "harness", "cli", str(SCRIPTS / script), *args],
                          env=env, cwd=str(tmp_path))


def say(term: Terminal, line: str) -> str:
    term.sendline(line)
    before = term.pos
    term.expect(PROMPT, STEP_S)
    return term.text()[before:term.pos]


def finish(term: Terminal) -> None:
    term.sendline("exit")
    term.expect(r"\*\*\* Stopping network", STEP_S)
    assert term.wait(STEP_S) == 0, term.text()[-2000:]
    assert harness_objects_left() == []


def test_adhoc_script_runs_unchanged(tmp_path):
    term = run_script(tmp_path, "adhoc_chain.py")
    try:
        term.expect(r"\*\*\* Creating nodes", START_S)
        term.expect(r"sta1: ht_cap=HT40\+ ignored", STEP_S)
        term.expect(r"\*\*\* Running CLI", START_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "sta1 ping -c2 sta2")
        assert re.search(r"[12] received", out), out
        out = say(term, "sta1 ping -c2 -W1 sta3")  # 80 m at exponent 4: out of range
        assert " 0 received" in out, out
        out = say(term, "sta2 ping -6 -c2 2001::3")  # the script's setIP6
        assert re.search(r"[12] received", out), out
        out = say(term, "py sta3.setPosition('40,10,0')")
        out = say(term, "sta1 ping -c3 -W2 sta3")
        assert re.search(r"[123] received", out), out
        out = say(term, "py sta1.cmd('ip -o -4 addr show dev wlan0')")
        assert "10.0.0.1/8" in out, out
        finish(term)
    finally:
        term.close()


def test_mesh_script_runs_unchanged(tmp_path):
    term = run_script(tmp_path, "mesh_chain.py")
    try:
        term.expect(r"\*\*\* Running CLI", START_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "sta1 ping -c4 -W3 sta3")  # through sta2: HWMP finds the path
        assert re.search(r"[1234] received", out), out
        out = say(term, "routes sta1")
        assert "802.11s paths" in out, out
        finish(term)
    finally:
        term.close()


def test_access_point_script_runs_unchanged(tmp_path):
    term = run_script(tmp_path, "ap_wired.py")
    try:
        term.expect(r"plotGraph: no live window here", START_S)
        term.expect(r"\*\*\* Running CLI", START_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "sta1 iw dev wlan0 link")
        assert "Connected to" in out and "SSID: new-ssid" in out, out
        out = say(term, "sta1 ping -c2 h1")  # through the access point's bridge and switch
        assert re.search(r"[12] received", out), out
        out = say(term, "sta2 ping -c2 sta1")
        assert re.search(r"[12] received", out), out
        finish(term)
    finally:
        term.close()


def test_wpa2_access_point_behind_a_switch_runs_unchanged(tmp_path):
    term = run_script(tmp_path, "ap_switch_wpa2.py")
    try:
        term.expect(r"\*\*\* Running CLI", START_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "sta1 ping -c2 h1")
        assert re.search(r"[12] received", out), out
        out = say(term, "links")
        assert re.search(r"sta1 - ap1\s+association", out), out
        finish(term)
    finally:
        term.close()


def node_at(out: str, name: str) -> tuple:
    """(x, y, moves) of a node in ``nodes``' table."""
    m = re.search(rf"^{name}\s+station\s+\S+\s+\(([-\d.]+), ([-\d.]+)\)\s.*?\s(no|yes, .*)$",
                  out, re.M)
    assert m, out
    return float(m.group(1)), float(m.group(2)), m.group(3)


def test_mobility_script_moves_stations_in_the_medium(tmp_path):
    term = run_script(tmp_path, "mobility.py")
    try:
        term.expect(r"\*\*\* Running CLI", START_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "nodes")  # where on its line depends on the guest's clock
        x, y, moves = node_at(out, "sta1")
        assert 10 <= x <= 60 and y == 30 and moves.startswith("yes"), out
        assert node_at(out, "sta3") == (50, 50, "no"), out
        out = say(term, "move sta1 0 0")
        assert "sta1 follows a trajectory" in out, out
        finish(term)
    finally:
        term.close()
    term = run_script(tmp_path, "mobility.py", "-m")
    try:
        term.expect(r"\*\*\* Running CLI", START_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "nodes")
        x, y, moves = node_at(out, "sta1")
        assert 10 <= x <= 30 and 50 <= y <= 70 and moves.startswith("yes"), out
        x, y, _ = node_at(out, "sta2")
        assert 60 <= x <= 70 and 10 <= y <= 20, out
        finish(term)
    finally:
        term.close()
