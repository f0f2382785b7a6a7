"""``harness cli [TARGET] [KEY=VALUE ...]``: start a network and open a prompt on it.

TARGET is an experiment file (one point of it), a builder name with options (default: a
3-hop chain), or a Python script (a harness script that defines ``topo``, or a Mininet-WiFi
script, which opens its own prompt with ``CLI(net)``). The prompt is the same natively and in
the VM: on a host without mac80211_hwsim it runs in a guest attached to this terminal, and its
pictures are drawn here (the guest has no matplotlib).
"""
from __future__ import annotations

import argparse
import json
import os
import runpy
import shlex
import shutil
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, List

from harness.cli.options import add_clock_option

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
    add_clock_option(p)
    p.set_defaults(func=cmd_cli)


def cmd_cli(args: argparse.Namespace) -> int:
    from harness.interactive import sources
    kind = sources.kind_of(args.target)
    if kind != "script":
        sources.load(args.target, args.options)  # every key checked before anything starts
    from harness.vm.dispatch import needs_vm
    from harness.vm.engine import engine
    if needs_vm() and engine() == "uml":
        return in_uml(args)
    if needs_vm():
        return in_vm(args)
    if kind == "script":
        return run_script(args.target, list(args.options))
    from harness.interactive.prompt import open_prompt
    from harness.interactive.session import Session, host_view_from_env
    setup = sources.load(args.target, args.options)
    print(f"*** starting {setup.name} ({setup.source}): {len(setup.topo.node_names())} nodes",
          flush=True)
    session = Session.start(setup, show_path=host_view_from_env())
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
    from harness.interactive.session import Session, host_view_from_env
    from harness.net.network import Network
    net = Network(topo, name=f"cli-{name}", medium=medium)
    net.start()
    errors = open_prompt(Session(net, name=name, show_path=host_view_from_env()))
    return 1 if errors and not sys.stdin.isatty() else 0


# -- in a UML guest ------------------------------------------------------------------------
def in_uml(args: argparse.Namespace) -> int:
    """The prompt in a fresh UML guest on this terminal, on the host's clock (a person types
    at it: ``ping -c3`` takes three seconds); it writes captures and pictures to this directory,
    the only host folder it may write. Piped commands become the guest command's input."""
    from harness.vm import uml_dispatch
    argv = ["cli"] + ([args.target] if args.target else []) + list(args.options)
    kernel = uml_dispatch.prepare()
    print(f"harness: starting the VM: a UML guest on this terminal ({kernel.label()}, the "
          "host's clock)", file=sys.stderr, flush=True)
    script = uml_dispatch.harness_script(argv)
    if not sys.stdin.isatty():
        return uml_dispatch.run_script(script, output=Path.cwd(), stdin=sys.stdin.buffer.read(),
                                       clock="host")
    size = shutil.get_terminal_size((80, 24))
    script = f"stty rows {size.lines} cols {size.columns} 2>/dev/null\n{script}"
    import termios
    import tty
    saved = termios.tcgetattr(sys.stdin.fileno())
    try:
        tty.setraw(sys.stdin.fileno())  # every key, Ctrl-C too, goes to the guest's terminal
        return uml_dispatch.run_script(script, output=Path.cwd(), console=True, clock="host")
    finally:
        termios.tcsetattr(sys.stdin.fileno(), termios.TCSADRAIN, saved)


# -- in the VM -----------------------------------------------------------------------------
def _piped_in_vm(argv: List[str], env: Dict[str, str], extra: List[Any], bridge: Path) -> int:
    """``printf 'nodes\\nexit\\n' | harness cli FILE`` in the guest: this process's standard
    input, read to its end, becomes the guest command's (a file in the cache share); the
    output streams back as any guest command's does."""
    from harness.vm.dispatch import GUEST_CACHE, harness_argv_script, run_script_in_vm
    (bridge / "stdin").write_text(sys.stdin.read())
    exports = " ".join(f"{k}={shlex.quote(v)}" for k, v in env.items())
    script = (f"export {exports}; "
              f"{harness_argv_script(argv)} <{GUEST_CACHE}/{bridge.name}/stdin")
    return run_script_in_vm(script, extra_shares=extra)


def in_vm(args: argparse.Namespace) -> int:
    """The prompt in a fresh guest on this terminal; its pictures drawn here."""
    from harness.interactive import plotting
    from harness.interactive.session import OUT_ENV
    from harness.paths import cache_dir
    from harness.vm.dispatch import (
        GUEST_CACHE,
        host_path_of,
        map_host_paths,
        output_share,
        run_on_console,
        shares_for,
    )
    argv = ["cli"] + ([args.target] if args.target else []) + list(args.options)
    shares, _ = shares_for(Path.cwd())
    argv, extra = map_host_paths(argv, shares)
    out = output_share(Path.cwd(), shares)  # captures written through to this directory
    extra += [out] if out else []
    bridge = cache_dir() / "guest" / f"cli-{os.getpid()}"
    bridge.mkdir(parents=True, exist_ok=True)
    every = shares + extra
    shown: Dict[str, str] = {}
    for share in every:
        if share.tag != "cache":
            shown[share.guest_path] = str(share.host_path.resolve())
    env = {plotting.BRIDGE_ENV: f"{GUEST_CACHE}/{bridge.name}",
           "HARNESS_HOST_PATHS": json.dumps(shown), **({OUT_ENV: out.guest_path} if out else {})}
    stop = threading.Event()
    watcher = threading.Thread(target=plotting.serve, daemon=True, name="plot-bridge",
                               args=(bridge, lambda g: host_path_of(g, every), stop))
    watcher.start()
    try:
        if not sys.stdin.isatty():  # commands piped in, as natively: no console, no readline
            return _piped_in_vm(argv, env, extra, bridge)
        return run_on_console(argv, extra_env=env, extra_shares=extra)
    finally:
        stop.set()
        watcher.join(5)
        shutil.rmtree(bridge, ignore_errors=True)
