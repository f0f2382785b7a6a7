"""``harness bench``: figures of the medium, measured (not timed tests).

- ``harness bench medium [--json]``: the fidelity report: one saturated UDP (or TCP) sender
  over one hop through real Linux and mediumd, goodput against harness.medium.analytic, per
  PHY/rate (``udp_1hop_<phy>_<rate>``, variants ``_rts``/``_sp``, ``tcp``), by the checks of
  bench/medium_fidelity.py. Runs in a guest with the uml engine, twice by default: on a quiet host, and
  with every host core saturated by a CPU load the bench starts itself; the two passes are
  printed side by side.
- ``harness bench core``: events per second of the simulation core (bench/medium_core.py).
- ``harness bench engine``: the UML engine's costs (bench/engine.py).
- ``harness bench e2e``: lag percentiles and mediumd's CPU share during a saturated
  54 Mbit/s TCP flow (bench/medium_e2e.py).
"""
from __future__ import annotations

import argparse
import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, List

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers

def register(sub: Subparsers) -> None:
    p = sub.add_parser("bench", help="measure the medium: fidelity report, core speed, lag",
                       description=__doc__.split("\n\n")[0])
    bsub = p.add_subparsers(dest="bench_command", metavar="BENCH")
    bsub.required = True
    m = bsub.add_parser("medium", add_help=False, help="fidelity report: one-hop goodput vs analytic DCF "
                                       "(bench/medium_fidelity.py)")
    m.add_argument("args", nargs="*", help="passed to bench/medium_fidelity.py (its own options)")
    m.set_defaults(func=cmd_medium, passthrough=True)
    c = bsub.add_parser("core", add_help=False, help="simulation core events/s (bench/medium_core.py)")
    c.add_argument("args", nargs="*", help="passed to bench/medium_core.py (its own options)")
    c.set_defaults(func=cmd_core, passthrough=True)
    e = bsub.add_parser("e2e", add_help=False, help="lag and mediumd CPU during 54 Mbit/s TCP (bench/medium_e2e.py)")
    e.add_argument("args", nargs="*", help="passed to bench/medium_e2e.py (its own options)")
    e.set_defaults(func=cmd_e2e, passthrough=True)
    g = bsub.add_parser("engine", add_help=False, help="the UML engine: wall s per emulated s, boot, "
                                       "memory, --jobs speed-up (bench/engine.py)")
    g.add_argument("args", nargs="*", help="passed to bench/engine.py (its own options)")
    g.set_defaults(func=cmd_engine, passthrough=True)


def _bench_file(name: str) -> Path:
    from harness.paths import project_file
    path = project_file("bench", name)
    if not path.exists():
        raise HarnessError(f"{path} is missing", hint="it is part of the checkout, not installs")
    return path


def load_bench(name: str) -> ModuleType:
    """The module ``bench/<name>.py``, loaded by its path once per process: the benches sit
    above the harness's layers (a fidelity check builds a network and runs flows), so they
    are files of the checkout, not modules of the package. Registered as ``name``, the name the
    bench scripts import it by, so both share one module."""
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _bench_file(f"{name}.py"))
    if spec is None or spec.loader is None:
        raise HarnessError(f"bench/{name}.py cannot be loaded as a module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # before it runs: its dataclasses look themselves up there
    try:
        spec.loader.exec_module(module)
    except BaseException:
        del sys.modules[name]
        raise
    return module


def _script(name: str, extra: List[str]) -> int:
    path = _bench_file(name)
    extra = extra[1:] if extra[:1] == ["--"] else extra
    return subprocess.call([sys.executable, str(path), *extra])


def cmd_medium(args: argparse.Namespace) -> int:
    return _script("medium_fidelity.py", args.args)


def cmd_core(args: argparse.Namespace) -> int:
    return _script("medium_core.py", args.args)


def cmd_e2e(args: argparse.Namespace) -> int:
    """The e2e bench builds networks: in a guest with the uml engine."""
    from harness.vm import dispatch
    if not dispatch.needs_vm():
        return _script("medium_e2e.py", args.args)
    return dispatch.run_script(dispatch.harness_script(["bench", "e2e", "--", *args.args]),
                               quiet=False)


def cmd_engine(args: argparse.Namespace) -> int:
    return _script("engine.py", args.args)
