"""``harness cli`` driven through a pseudo-terminal, as a student types at it.

One prompt on a 2-hop 802.11b chain (11 Mbit/s, RTS off) goes through every command: the
tables, a node command with names turned into addresses, iperf, the medium's counters, a
move that takes a station out of range mid-session (its pings are lost, and come back when it
returns), a link made lossy and back, RTS/CTS switched on and seen in a capture, a window clamp seen in the sender's
samples, the picture, bad commands, tab completion, history, Ctrl-C, and exit, after which
nothing of the network is left.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from pty_terminal import Terminal

from harness.kernel.cleanup import harness_objects_left
from harness.medium.pcap import read_attempts

pytestmark = pytest.mark.emulation

PROMPT = r"harness> "
#: Timeouts are on the clock of the machine running the test: in the TCG guest that is
#: virtual time, which leaps ahead while the guest waits for the host's disk (9p), so starting
#: Python there can take tens of virtual minutes. They only bound a hang.
START_S = 7200.0
STEP_S = 3600.0


def start(tmp_path: Path, *args: str) -> Terminal:
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return Terminal.spawn([sys.executable, "-m", "harness", "cli", *args], env=env,
                          cwd=str(tmp_path))


def say(term: Terminal, line: str, timeout: float = STEP_S) -> str:
    """Type a line, wait for the next prompt, return what the command printed."""
    term.sendline(line)
    before = term.pos
    term.expect(PROMPT, timeout)
    return term.text()[before:term.pos]


def test_every_command_at_the_prompt(tmp_path):
    term = start(tmp_path, "chain", "hops=2", "phy=b", "rate=11")
    try:
        term.expect(r"\*\*\* chain: 3 nodes \(sta1, sta2, sta3\)", START_S)
        term.expect(PROMPT, STEP_S)

        out = say(term, "nodes")
        assert re.search(r"sta3\s+station\s+10\.0\.0\.3/24\s+\(400, 0\)", out), out

        out = say(term, "links")
        assert re.search(r"sta1 - sta2\s+wireless\s+200\.0\s+\d+\.\d", out), out
        assert "11 (fixed)" in out, out

        out = say(term, "sta1 ping -c2 sta3")  # sta3 becomes its address
        assert "PING 10.0.0.3" in out and "2 received" in out, out

        out = say(term, "iperf -t 3 sta1 sta3")
        tput = float(re.search(r"sta1 -> sta3: ([\d.]+) Mbit/s", out).group(1))
        assert 0.3 < tput < 6.0, out  # 2 hops of 802.11b at 11 Mbit/s

        out = say(term, "medium")
        attempts = int(re.search(r"sta1 > sta2\s+(\d+)", out).group(1))
        assert attempts > 100, out

        out = say(term, "move sta3 1500 0")  # far beyond the 250 m range
        assert "sta2 1300 m out of range" in out, out
        out = say(term, "sta2 ping -c2 -W1 sta3")
        assert "0 received" in out, out
        say(term, "move sta3 400 0")
        out = say(term, "sta2 ping -c3 -W2 sta3")
        assert re.search(r"[123] received", out), out

        out = say(term, "loss sta2 sta3 1")  # every frame lost on that link
        assert "lost with probability 1" in out, out
        out = say(term, "sta2 ping -c2 -W1 sta3")
        assert " 0 received" in out, out
        say(term, "loss sta2 sta3 off")
        out = say(term, "sta2 ping -c3 -W2 sta3")
        assert re.search(r"[123] received", out), out

        out = say(term, "rts sta1 on")
        assert "RTS threshold 0" in out, out
        pcap = tmp_path / "rts.pcap"
        out = say(term, f"capture on {pcap.name}")
        assert f"capturing every transmission attempt to {pcap}" in out, out
        say(term, "sta1 ping -c3 sta2")
        out = say(term, "capture off")
        assert re.search(r"capture written to .*rts.pcap: \d+ attempts", out), out
        attempts_seen = read_attempts(pcap)
        sta1_rts = [a for a in attempts_seen if a.kind == "rts" and a.ta.endswith("00:00:00")]
        assert sta1_rts, [(a.kind, a.ta) for a in attempts_seen]
        assert not [a for a in attempts_seen if a.kind == "rts" and a.ta.endswith("01:00")]

        out = say(term, "cwnd sta1 2")
        assert "clamped to 2 segments" in out, out
        out = say(term, "iperf -t 3 sta1 sta3")
        assert re.search(r"cwnd max [12] segments \(clamp 2\)", out), out

        out = say(term, "plot topo.png")
        assert "picture written" in out or "needs matplotlib" in out, out

        for bad, message in (("bogus", r"\*\*\* unknown command 'bogus': commands are capture"),
                             ("move sta9 1 1", r"\*\*\* no node 'sta9'; nodes: sta1, sta2, sta3"),
                             ("iperf sta1", r"\*\*\* iperf: give source and destination"),
                             ("rts sta1 maybe", r"\*\*\* rts sta1 maybe: allowed on, off"),
                             ("move sta1 x 0", r"\*\*\* X 'x' is not a number")):
            out = say(term, bad)
            assert re.search(message, out), out

        term.send("nod\t")  # completes to "nodes"
        term.sendline("")
        term.expect(r"sta1\s+station", STEP_S)
        term.expect(PROMPT, STEP_S)
        term.send("\x1b[A")  # up arrow: the last command again
        term.sendline("")
        term.expect(r"sta1\s+station", STEP_S)
        term.expect(PROMPT, STEP_S)

        term.sendline("sta1 ping sta2")  # runs until interrupted
        term.expect(r"icmp_seq=2", STEP_S)
        term.interrupt()
        term.expect(r"packets transmitted", STEP_S)
        term.expect(PROMPT, STEP_S)
        out = say(term, "sta1 ping -c1 sta2")
        assert "1 received" in out, out

        term.sendline("exit")
        term.expect(r"network chain stopped", STEP_S)
        assert term.wait(STEP_S) == 0
        assert harness_objects_left() == []
    finally:
        term.close()
