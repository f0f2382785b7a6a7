"""``harness cli [TARGET] [KEY=VALUE ...]``: start a network and open a prompt on it.

TARGET is an experiment file (one point of it), a builder name with options (default: a
3-hop chain), or a Python script (a harness script that defines ``topo``, or a Mininet-WiFi
script, which opens its own prompt with ``CLI(net)``). The prompt is the same natively and in
a guest: with the uml engine (the default) it runs in a UML guest attached to this terminal,
on the host's clock, writing its pictures and captures to this directory.
"""
from __future__ import annotations

import argparse
import runpy
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, List

from harness.cli.options import add_engine_option

if TYPE_CHECKING:
    from harness.cli import Subparsers
    from harness.net import Topology


def register(sub: Subparsers) -> None:
    p = sub.add_parser(
        "cli", help="start a network and open a prompt on it (nodes, links, ping, iperf, move, "
                    "medium, rts, cwnd, capture, plot)",
        description="Examples: harness cli (a 3-hop chain); harness cli chain hops=5 rate=11; "
                    "harness cli labs/02-hidden-terminal/lab.yaml; harness cli experiments/"
                    "quick_chain.yaml topology.hops=2; harness cli my_mininet_wifi_script.py. "
                    "Type help at the prompt for its commands.")
    p.add_argument("target", nargs="?", metavar="TARGET",
                   help="an experiment file (.yaml), a builder name (default chain) or a "
                        "Python script (.py)")
    p.add_argument("options", nargs=argparse.REMAINDER, metavar="KEY=VALUE",
                   help="parameters (hops=4, topology.rts=true, medium.cs_range=300, "
                        "policy.cwnd_clamp=2); for a script, its own arguments")
    add_engine_option(p)
    p.set_defaults(func=cmd_cli)


def cmd_cli(args: argparse.Namespace) -> int:
    from harness.interactive import sources
    kind = sources.kind_of(args.target)
    if kind != "script":
        sources.load(args.target, args.options)  # every key checked before anything starts
    from harness.vm.dispatch import needs_vm
    if needs_vm():
        return in_uml(args)
    if kind == "script":
        return run_script(args.target, list(args.options))
    from harness.interactive.prompt import open_prompt
    from harness.interactive.session import Session
    setup = sources.load(args.target, args.options)
    print(f"*** starting {setup.name} ({setup.source}): {len(setup.topo.node_names())} nodes",
          flush=True)
    session = Session.start(setup)
    errors = open_prompt(session)
    return 1 if errors and not sys.stdin.isatty() else 0


# -- Python scripts ----------------------------------------------------------------------
def run_script(path: str, argv: List[str]) -> int:
    """Run a script as its own ``__main__`` (Mininet-WiFi's imports resolve to the harness's
    compatibility layer). A harness script that leaves a ``topo`` (a ``Topology``) and opened
    no prompt gets one on it."""
    from harness.compat import mn_wifi
    from harness.net import Topology
    mn_wifi.install_aliases()
    sys.argv = [path, *argv]
    prompts = mn_wifi.prompts_opened()
    namespace = runpy.run_path(path, run_name="__main__")
    topo = namespace.get("topo")
    if mn_wifi.prompts_opened() == prompts and isinstance(topo, Topology):
        return _prompt_on(topo, namespace.get("medium"), Path(path).stem)
    return 0


def _prompt_on(topo: Topology, medium: Any, name: str) -> int:
    from harness.interactive.prompt import open_prompt
    from harness.interactive.session import Session
    from harness.net.network import Network
    net = Network(topo, name=f"cli-{name}", medium=medium)
    net.start()
    errors = open_prompt(Session(net, name=name))
    return 1 if errors and not sys.stdin.isatty() else 0


# -- in a UML guest ------------------------------------------------------------------------
def in_uml(args: argparse.Namespace) -> int:
    """The prompt in a fresh UML guest on this terminal, on the host's clock (a person types
    at it: ``ping -c3`` takes three seconds); it writes captures and pictures to this directory,
    the only host folder it may write. Piped commands become the guest command's input."""
    from harness.vm import dispatch
    argv = ["cli"] + ([args.target] if args.target else []) + list(args.options)
    kernel = dispatch.prepare()
    print(f"harness: starting the VM: a UML guest on this terminal ({kernel.label()}, the "
          "host's clock)", file=sys.stderr, flush=True)
    script = dispatch.harness_script(argv)
    if not sys.stdin.isatty():
        return dispatch.run_script(script, output=Path.cwd(), stdin=sys.stdin.buffer.read(),
                                       clock="host")
    size = shutil.get_terminal_size((80, 24))
    script = f"stty rows {size.lines} cols {size.columns} 2>/dev/null\n{script}"
    import termios
    import tty
    saved = termios.tcgetattr(sys.stdin.fileno())
    try:
        tty.setraw(sys.stdin.fileno())  # every key, Ctrl-C too, goes to the guest's terminal
        return dispatch.run_script(script, output=Path.cwd(), console=True, clock="host")
    finally:
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)
