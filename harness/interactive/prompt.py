"""The command line of ``harness cli``, in the manner of Mininet's: ``sta1 ping -c3 sta4``.

Built on ``cmd`` and ``readline``: history (kept between sessions in the harness cache),
tab completion of commands, node names and keywords, ``help`` from each command's first
docstring line. A line whose first word is a node name runs the rest in that node (node
names in it become addresses). An unknown command, a wrong argument or a failed step prints
one line starting ``***`` and the prompt goes on: the network stays up until ``exit``
(or Ctrl-D), which tears everything down. Ctrl-C stops the command running, not the prompt.
"""
from __future__ import annotations

import argparse
import cmd
import code
import contextlib
import shlex
import sys
import traceback
from pathlib import Path
from typing import IO, Any, Callable, Dict, List, Optional, Sequence, Tuple

from harness.errors import HarnessError
from harness.interactive.session import IPERF_SECONDS, Session
from harness.paths import cache_dir

HISTORY_FILE = "cli_history"
HISTORY_LENGTH = 1000
#: Commands (besides node names) and the words their arguments complete to.
KEYWORDS: Dict[str, Sequence[str]] = {"rts": ("on", "off"), "cwnd": ("off", "1", "2", "4", "8"),
                                      "capture": ("on", "off"), "loss": ("off", "0.1", "0.3")}
#: Commands whose arguments are node names.
NODE_ARGS = ("iperf", "move", "rts", "cwnd", "plot", "routes", "distance", "ping", "loss")


class _Parser(argparse.ArgumentParser):
    """argparse that raises instead of exiting (a wrong option must not end the prompt)."""

    def error(self, message: str) -> Any:
        usage = " ".join(self.format_usage().split(":", 1)[1].split())  # one line, unwrapped
        raise HarnessError(f"{self.prog}: {message}; usage: {usage}")


_IPERF = _Parser(prog="iperf", add_help=False)
_IPERF.add_argument("-t", dest="seconds", type=float, default=IPERF_SECONDS)
_IPERF.add_argument("-u", dest="udp_rate", metavar="RATE")
_IPERF.add_argument("-C", dest="congestion", metavar="MODULE")
_IPERF.add_argument("nodes", nargs="*")
_PLOT = _Parser(prog="plot", add_help=False)
_PLOT.add_argument("--ranges", metavar="NODE,NODE")
_PLOT.add_argument("--route", nargs=2, action="append", metavar=("SRC", "DST"), default=[])
_PLOT.add_argument("--at", type=float, metavar="SECONDS")
_PLOT.add_argument("--frames", metavar="FOLDER")
_PLOT.add_argument("--step", type=float, metavar="SECONDS")
_PLOT.add_argument("file", nargs="?")


def _pairs(words: Sequence[str], what: str) -> List[Tuple[str, str]]:
    if not words or len(words) % 2:
        raise HarnessError(f"{what}: give source and destination nodes in pairs (SRC DST [SRC DST ...])")
    return [(words[i], words[i + 1]) for i in range(0, len(words), 2)]


def _words(arg: str, usage: str, counts: Sequence[int],
           valid: Callable[[List[str]], bool] = lambda words: True) -> List[str]:
    """A command's arguments, if there are ``counts`` of them and they are ``valid``; else
    its usage."""
    words = arg.split()
    if len(words) not in counts or not valid(words):
        raise HarnessError(f"usage: {usage}")
    return words


def _number(text: str, what: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise HarnessError(f"{what} {text!r} is not a number (metres)") from None


class Prompt(cmd.Cmd):
    """``harness>`` on a session; ``onecmd`` returns True only for ``exit``."""

    prompt = "harness> "
    doc_header = "commands (help COMMAND for more; NODE COMMAND runs a command in a node):"

    def __init__(self, session: Session, *, stdin: Optional[IO[str]] = None,
                 stdout: Optional[IO[str]] = None, history: bool = True):
        super().__init__(stdin=stdin, stdout=stdout)
        self.session = session
        self.tty = (stdin or sys.stdin).isatty()
        self.use_rawinput = stdin is None
        self.history = history and self.tty and self.use_rawinput
        self.errors = 0
        if not self.tty:
            self.prompt = ""

    # -- the loop --------------------------------------------------------------------------
    def run(self, intro: str = "") -> int:
        """The prompt until ``exit``/EOF; then the network is torn down. Returns the number of
        commands that failed (for scripted use)."""
        readline = self._readline()
        try:
            if intro:
                self.stdout.write(intro + "\n")
            while True:
                try:
                    self.cmdloop()
                    break
                except KeyboardInterrupt:
                    self.stdout.write("^C (exit or Ctrl-D leaves and tears the network down)\n")
        finally:
            if readline is not None:
                with contextlib.suppress(OSError):
                    readline.write_history_file(str(cache_dir() / HISTORY_FILE))
            for line in self.session.close():
                self.stdout.write(line + "\n")
        return self.errors

    def _readline(self) -> Any:
        if not self.history:
            return None
        try:
            import readline
        except ImportError:
            return None
        readline.set_history_length(HISTORY_LENGTH)
        readline.set_completer_delims(" \t\n")
        with contextlib.suppress(OSError):
            readline.read_history_file(str(cache_dir() / HISTORY_FILE))
        return readline

    def emptyline(self) -> bool:
        return False  # cmd's default repeats the last command: never wanted here

    def onecmd(self, line: str) -> bool:
        try:
            return bool(super().onecmd(line))
        except HarnessError as err:
            self.errors += 1
            self.stdout.write(f"*** {err}\n")
        except Exception as err:  # noqa: BLE001 - the network stays up; say what broke
            self.errors += 1
            self.stdout.write(f"*** error: {type(err).__name__}: {err}\n")
            if "--debug" in sys.argv:
                traceback.print_exc()
        return False

    def default(self, line: str) -> None:
        first, _, rest = line.strip().partition(" ")
        if first in self.session.node_names:
            self.stdout.flush()
            code_ = self.session.run_in_node(first, rest, stdin_tty=self.tty)
            if code_ not in (0, None):
                self.stdout.write(f"({first}: exit {code_})\n")
            return
        raise HarnessError(f"unknown command {first!r}: commands are {', '.join(self.commands())}; "
                           f"or NODE COMMAND with a node of {', '.join(self.session.node_names)}")

    def commands(self) -> List[str]:
        return sorted(name[3:] for name in self.get_names() if name.startswith("do_") and name != "do_EOF")

    # -- completion ----------------------------------------------------------------------------
    def completenames(self, text: str, *ignored: Any) -> List[str]:
        return [n for n in self.commands() + self.session.node_names if n.startswith(text)]

    def completedefault(self, text: str, line: str, begidx: int, endidx: int) -> List[str]:
        command = (line.split() or [""])[0]
        options: List[str] = []
        if command in NODE_ARGS or command in self.session.node_names:
            options += self.session.node_names
        options += list(KEYWORDS.get(command, ()))
        if command in ("capture", "plot") or command in self.session.node_names:
            options += _files(text)
        return [o for o in dict.fromkeys(options) if o.startswith(text)]

    # -- commands ------------------------------------------------------------------------------
    def _print(self, text: str) -> None:
        self.stdout.write(text.rstrip("\n") + "\n")

    def do_nodes(self, arg: str) -> None:
        """nodes: every node with its kind, address, position, radio and interfaces; with
        moving nodes, where each is now and how it moves."""
        self._print(self.session.nodes())

    def do_links(self, arg: str) -> None:
        """links: each link with its distance, SNR, the medium's delivery ratio and attempts
        per direction so far, and the rate the sender uses now."""
        self._print(self.session.links())

    do_net = do_links

    def do_medium(self, arg: str) -> None:
        """medium: the medium's counters so far, per link (attempts, successes, collisions,
        retry drops, airtime) and per radio (frames, queue drops, busy time)."""
        self._print(self.session.medium_counters())

    def do_iperf(self, arg: str) -> None:
        """iperf [-t SECONDS] [-u RATE] [-C MODULE] SRC DST [SRC DST ...]: iperf3 TCP (or UDP
        at RATE, e.g. 2M) from SRC to DST for 10 s; several pairs run at the same time."""
        args = _IPERF.parse_args(shlex.split(arg))
        self._print(self.session.iperf(_pairs(args.nodes, "iperf"), seconds=args.seconds,
                                       udp_rate=args.udp_rate, congestion=args.congestion))

    def do_ping(self, arg: str) -> None:
        """ping SRC DST [COUNT]: ping -c COUNT (3) from SRC to DST (same as SRC ping -c3 DST)."""
        words = _words(arg, "ping SRC DST [COUNT]", (2, 3), lambda w: all(c.isdigit() for c in w[2:]))
        self.session.node(words[0]), self.session.ip(words[1])
        self.session.ping(words[0], words[1], int(words[2]) if len(words) == 3 else 3)

    def do_pingall(self, arg: str) -> None:
        """pingall: one ping between every two nodes with an address."""
        self._print(self.session.pingall())

    def do_move(self, arg: str) -> None:
        """move NODE X Y [Z]: put a node's radio at (X, Y[, Z]) metres; the medium takes the new
        position at once, also in the middle of a flow (not a node that follows a trajectory,
        medium.mobility: the medium places it at every frame)."""
        words = _words(arg, "move NODE X Y [Z] (metres)", (3, 4))
        x, y = _number(words[1], "X"), _number(words[2], "Y")
        z = _number(words[3], "Z") if len(words) == 4 else None
        self._print(self.session.move(words[0], x, y, z))

    def do_loss(self, arg: str) -> None:
        """loss NODE NODE P|off: frames between two nodes also lost with probability P (both
        ways), on top of what the distance costs; off: the propagation model alone."""
        self._print(self.session.loss(*_words(arg, "loss NODE NODE P|off (P a probability 0..1)", (3,))))

    def do_rts(self, arg: str) -> None:
        """rts NODE on|off|BYTES: RTS/CTS before every frame, never, or above a size."""
        self._print(self.session.rts(*_words(arg, "rts NODE on|off|BYTES", (2,))))

    def do_cwnd(self, arg: str) -> None:
        """cwnd NODE SEGMENTS|off: clamp the TCP congestion window of NODE as a sender."""
        self._print(self.session.cwnd(*_words(arg, "cwnd NODE SEGMENTS|off", (2,))))

    def do_capture(self, arg: str) -> None:
        """capture on [FILE.pcap] | capture off: every transmission attempt the medium makes,
        with its fate, in a pcap for Wireshark (default file: capture-HHMMSS.pcap here)."""
        words = _words(arg, "capture on [FILE.pcap] | capture off", (1, 2),
                       lambda w: w[0] != "off" or len(w) == 1)
        self._print(self.session.capture(words[0], words[1] if len(words) > 1 else None))

    def do_plot(self, arg: str) -> None:
        """plot [FILE] [--ranges NODE,NODE] [--route SRC DST] [--at SECONDS]: the picture (PNG
        and SVG) of nodes, ranges, links coloured by delivery ratio and the routes in force;
        moving nodes where they are now, or at SECONDS since they started moving.
        plot --frames FOLDER [--step SECONDS]: the whole motion, a PNG every SECONDS (and a GIF)."""
        args = _PLOT.parse_args(shlex.split(arg))
        ranges = [n for n in (args.ranges or "").split(",") if n]
        self._print(self.session.plot(args.file, ranges_of=ranges,
                                      pairs=[tuple(r) for r in args.route], at=args.at,
                                      frames=args.frames, step=args.step))

    def do_routes(self, arg: str) -> None:
        """routes [NODE]: the routing table (IBSS, wired) or 802.11s path table of nodes."""
        self._print(self.session.routes(*arg.split()[:1]))

    def do_distance(self, arg: str) -> None:
        """distance A B: metres between two nodes."""
        self._print(self.session.distance(*_words(arg, "distance NODE NODE", (2,))))

    def do_flows(self, arg: str) -> None:
        """flows: run the experiment file's flows now, as one run of it would."""
        self._print(self.session.run_flows())

    def do_py(self, arg: str) -> None:
        """py EXPRESSION: evaluate Python with net, session and every node by name."""
        if not arg.strip():
            raise HarnessError("usage: py EXPRESSION (names: net, session, and the nodes)")
        names: Dict[str, Any] = {"net": self.session.net, "session": self.session,
                                 **self.session.py_names()}
        try:
            value = eval(compile(arg, "<py>", "eval"), names)  # noqa: S307 - the user's own prompt
        except SyntaxError:
            code.InteractiveInterpreter(names).runsource(arg, "<py>", "exec")
            return
        if value is not None:
            self._print(repr(value))

    def do_exit(self, arg: str) -> bool:
        """exit: stop everything (namespaces, radios, medium) and leave."""
        return True

    do_quit = do_exit

    def do_EOF(self, arg: str) -> bool:
        self.stdout.write("\n")
        return True


def _files(text: str) -> List[str]:
    base = Path(text).parent if text else Path(".")
    try:
        entries = sorted(base.iterdir()) if base.is_dir() else []
    except OSError:
        return []
    return [(str(p) if "/" in text else p.name) + ("/" if p.is_dir() else "") for p in entries]


def open_prompt(session: Session, *, intro: Optional[str] = None,
                stdin: Optional[IO[str]] = None) -> int:
    """Run the prompt on a session until exit; returns the number of failed commands."""
    text = intro if intro is not None else (
        f"*** {session.name}: {len(session.node_names)} nodes ({', '.join(session.node_names)}). "
        "Type help for the commands, exit to stop.")
    return Prompt(session, stdin=stdin).run(text)

