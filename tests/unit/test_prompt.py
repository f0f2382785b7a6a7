"""The prompt's own logic (harness.interactive.prompt): how lines become session calls, what a
bad line prints, what TAB offers. The session is a recorder here (pure logic: no network);
the real commands are driven through a terminal in tests/emulation/test_cli.py."""
from __future__ import annotations

import io
from typing import Any, List, Tuple

from harness.errors import HarnessError
from harness.interactive.prompt import Prompt
from harness.interactive.session import _moves, table
from harness.medium.mobility.trajectory import Trajectory, Waypoint


class Recorder:
    """Stands in for a Session: records calls, knows three nodes, refuses sta9."""

    node_names = ["sta1", "sta2", "sta3"]

    def __init__(self) -> None:
        self.calls: List[Tuple[str, Any]] = []

    def __getattr__(self, name: str) -> Any:
        def call(*args: Any, **kw: Any) -> str:
            if "sta9" in args:
                raise HarnessError("no node 'sta9'; nodes: sta1, sta2, sta3")
            self.calls.append((name, args, kw) if kw else (name, args))
            return f"{name} done"
        return call

    def close(self) -> List[str]:
        self.calls.append(("close", ()))
        return ["*** stopped"]


def run(lines: str) -> Tuple[Recorder, str, int]:
    rec = Recorder()
    out = io.StringIO()
    errors = Prompt(rec, stdin=io.StringIO(lines), stdout=out).run()  # type: ignore[arg-type]
    return rec, out.getvalue(), errors


def test_lines_become_session_calls_and_exit_tears_down():
    rec, out, errors = run("nodes\nlinks\nmove sta3 120 0\nmove sta1 1 2 3\nrts sta2 on\n"
                           "cwnd sta1 4\ncapture on x.pcap\ncapture off\nloss sta1 sta2 0.2\n"
                           "iperf -t 3 -C reno sta1 sta3 sta2 sta1\nplot --ranges sta1 --route sta1 sta3 p.png\n"
                           "plot --at 12.5 at.png\nplot --frames motion --step 2\n"
                           "sta1 ping -c3 sta3\nexit\nnodes\n")
    assert errors == 0, out
    assert rec.calls == [
        ("nodes", ()), ("links", ()), ("move", ("sta3", 120.0, 0.0, None)),
        ("move", ("sta1", 1.0, 2.0, 3.0)), ("rts", ("sta2", "on")), ("cwnd", ("sta1", "4")),
        ("capture", ("on", "x.pcap")), ("capture", ("off", None)), ("loss", ("sta1", "sta2", "0.2")),
        ("iperf", ([("sta1", "sta3"), ("sta2", "sta1")],),
         {"seconds": 3.0, "udp_rate": None, "congestion": "reno"}),
        ("plot", ("p.png",), {"ranges_of": ["sta1"], "pairs": [("sta1", "sta3")], "at": None,
                              "frames": None, "step": None}),
        ("plot", ("at.png",), {"ranges_of": [], "pairs": [], "at": 12.5, "frames": None,
                               "step": None}),
        ("plot", (None,), {"ranges_of": [], "pairs": [], "at": None, "frames": "motion",
                           "step": 2.0}),
        ("run_in_node", ("sta1", "ping -c3 sta3"), {"stdin_tty": False}),
        ("close", ())]  # nothing after exit runs
    assert out.endswith("*** stopped\n")


def test_bad_lines_print_one_clear_message_and_the_prompt_goes_on():
    rec, out, errors = run("bogus\nmove sta3\nmove sta3 x 1\nrts sta2\niperf sta1\n"
                           "iperf -z sta1 sta2\ncapture\ncapture off now\nmove sta9 1 1\n"
                           "py\nping sta1\nplot --at soon\nnodes\n")
    lines = [l for l in out.splitlines() if l.startswith("***")]
    assert lines[:-1] == [
        "*** unknown command 'bogus': commands are capture, cwnd, distance, exit, flows, help, "
        "iperf, links, loss, medium, move, net, nodes, ping, pingall, plot, py, quit, routes, "
        "rts; or NODE COMMAND with a node of sta1, sta2, sta3",
        "*** usage: move NODE X Y [Z] (metres)",
        "*** X 'x' is not a number (metres)",
        "*** usage: rts NODE on|off|BYTES",
        "*** iperf: give source and destination nodes in pairs (SRC DST [SRC DST ...])",
        "*** iperf: unrecognized arguments: -z; usage: iperf [-t SECONDS] [-u RATE] [-C MODULE] [nodes ...]",
        "*** usage: capture on [FILE.pcap] | capture off",
        "*** usage: capture on [FILE.pcap] | capture off",
        "*** no node 'sta9'; nodes: sta1, sta2, sta3",
        "*** usage: py EXPRESSION (names: net, session, and the nodes)",
        "*** usage: ping SRC DST [COUNT]",
        "*** plot: argument --at: invalid float value: 'soon'; usage: plot [--ranges NODE,NODE] "
        "[--route SRC DST] [--at SECONDS] [--frames FOLDER] [--step SECONDS] [file]"]
    assert errors == 12
    assert ("nodes", ()) in rec.calls  # the prompt went on after every error


def test_tab_completes_commands_nodes_and_keywords():
    prompt = Prompt(Recorder(), stdin=io.StringIO(""), stdout=io.StringIO())  # type: ignore[arg-type]
    assert prompt.completenames("mo") == ["move"]
    assert prompt.completenames("st") == ["sta1", "sta2", "sta3"]
    assert prompt.completedefault("s", "rts s", 4, 5) == ["sta1", "sta2", "sta3"]
    assert prompt.completedefault("o", "rts sta1 o", 9, 10) == ["on", "off"]
    assert prompt.completedefault("", "capture ", 8, 8)[:2] == ["on", "off"]
    assert "nodes" in prompt.completenames("")


def test_table_formats_rows_and_missing_values():
    text = table(["node", "attempts"], [["sta1", 12], ["sta10", None]])
    assert text.splitlines() == ["node   attempts", "-----  --------", "sta1         12",
                                 "sta10  -"]


def test_moves_column_says_how_a_node_moves_now():
    traj = Trajectory("sta1", (Waypoint(1, 10, 30, 0), Waypoint(12, 65, 30, 0)))
    assert _moves(None, 3.0) == "no"
    assert _moves(traj, 0.5) == "yes, from 1 s to 12 s"
    assert _moves(traj, 3.0) == "yes, 5.0 m/s now, until 12 s"
    assert _moves(traj, 20.0) == "yes, stopped at 12 s"
