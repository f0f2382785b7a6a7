"""``harness test``: the project's tests in one pytest session.

Host tests (unit tests, the medium core in virtual time) run here; emulation tests
(marker ``emulation``) run natively when this host has mac80211_hwsim, else the harness's
pytest plugin sends them to the VM and reports each one here (harness/testing/pytest_plugin.py).
By default the slow suites (marker ``slow``) are left out.
"""
from __future__ import annotations

import argparse
import subprocess
import sys
from typing import TYPE_CHECKING

from harness.cli.options import add_engine_option
from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers

PYTEST_NO_TESTS = 5


def register(sub: Subparsers) -> None:
    p = sub.add_parser("test", help="run the tests: unit tests here, emulation tests natively or in the VM",
                       description="Without options: every test except the slow suites. "
                                   "Extra arguments after -- go to pytest.")
    p.add_argument("--unit", action="store_true",
                   help="only the host tests (no emulation, no VM booted)")
    p.add_argument("--emulation", action="store_true",
                   help="only the emulation tests (and the tests that boot VMs from this "
                        "host: parallel sweeps, the prompt on this terminal)")
    p.add_argument("--slow", action="store_true",
                   help="include the slow suites (marker 'slow', e.g. the studies' full sweeps)")
    p.add_argument("pytest_args", nargs="*", help="paths or extra pytest arguments (after --)")
    add_engine_option(p)
    p.set_defaults(func=cmd_test)


def marker_expression(unit: bool, emulation: bool, slow: bool) -> str:
    if unit and emulation:
        raise HarnessError("--unit and --emulation exclude each other; give neither for both")
    parts = []
    if unit:
        parts.append("not emulation and not parallel and not vmhost")
    if emulation:
        parts.append("(emulation or parallel or vmhost)")
    if not slow:
        parts.append("not slow")
    return " and ".join(parts)


def cmd_test(args: argparse.Namespace) -> int:
    from harness.paths import code_root
    root = code_root()
    if not (root / "tests").is_dir():
        raise HarnessError(f"no tests/ directory under {root}: run from a checkout")
    argv = [sys.executable, "-m", "pytest", "-m", marker_expression(args.unit, args.emulation,
                                                                    args.slow)]
    argv += args.pytest_args or ["tests", "studies"]
    rc = subprocess.call(argv, cwd=root)
    return 0 if rc == PYTEST_NO_TESTS else rc
