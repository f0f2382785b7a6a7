"""``harness cli`` with the uml engine: the prompt runs in a UML guest attached to this
terminal (its console), typed at through a pseudo-terminal as a user would.

What only this path has: the guest's terminal takes this terminal's size, Ctrl-C reaches the
prompt in the guest (not the UML kernel's process), and the picture and a capture land in
this directory, the one host folder the guest may write, both named by their host paths.
"""
from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from pty_terminal import Terminal

from harness.kernel.host import native_capable

pytestmark = pytest.mark.vmhost

PROMPT = r"harness> "


def say(term: Terminal, line: str, timeout: float = 300) -> str:
    term.sendline(line)
    before = term.pos
    term.expect(PROMPT, timeout)
    return term.text()[before:term.pos]


@pytest.mark.skipif(native_capable(), reason="this host runs the prompt natively (no VM)")
def test_prompt_in_the_guest_on_this_terminal(tmp_path):
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    term = Terminal.spawn([sys.executable, "-m", "harness", "cli", "chain", "hops=1", "phy=b",
                           "rate=11"], env=env, cwd=str(tmp_path), rows=30, cols=120)
    try:
        term.expect(r"starting the VM", 120)
        term.expect(PROMPT, 150)
        out = say(term, "sta1 stty size")
        assert "30 120" in out, out
        out = say(term, "sta1 ping -c1 sta2")
        assert "1 received" in out, out
        out = say(term, "plot pic.png")
        assert f"picture written: {tmp_path}/pic.png, {tmp_path}/pic.svg" in out, out
        assert (tmp_path / "pic.png").read_bytes()[:4] == b"\x89PNG"
        say(term, "capture on c.pcap")
        say(term, "sta1 ping -c1 sta2")
        out = say(term, "capture off")
        assert re.search(rf"capture written to {tmp_path}/c.pcap: \d+ attempts", out), out
        assert (tmp_path / "c.pcap").stat().st_size > 24
        term.interrupt()  # at the prompt: the guest's prompt says so and goes on
        term.expect(r"\^C \(exit or Ctrl-D leaves", 60)
        term.expect(PROMPT, 60)
        out = say(term, "nodes")
        assert "sta2" in out, out
        term.sendline("exit")
        term.expect(r"network chain stopped", 120)
        assert term.wait(300) == 0
    finally:
        term.close()


@pytest.mark.skipif(native_capable(), reason="this host runs the prompt natively (no VM)")
def test_commands_piped_into_the_prompt_run_in_the_guest(tmp_path):
    """``printf ... | harness cli FILE``, as a script or a classroom's checker would: the piped
    lines run in the guest one by one, as natively, and the network is torn down at the end.

        sta1 ── sta2 ── sta3      (lab 1's chain at 2 hops)
    """
    import subprocess
    root = Path(__file__).resolve().parents[2]
    done = subprocess.run(
        [sys.executable, "-m", "harness", "cli", str(root / "labs/01-chain-hops/lab.yaml"),
         "topology.hops=2"], input="nodes\nsta1 ping -c2 sta3\nexit\n", cwd=tmp_path,
        capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr[-2000:]
    assert re.search(r"^sta3\s+station\s+10\.0\.0\.3", done.stdout, re.M), done.stdout
    assert "2 packets transmitted, 2 received" in done.stdout, done.stdout
    assert "namespaces, radios, medium removed" in done.stdout, done.stdout
