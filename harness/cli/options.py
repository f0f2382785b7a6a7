"""Options several subcommands share (not a subcommand itself)."""
from __future__ import annotations

import argparse
import os

from harness.vm.engine import ENGINES, choose
from harness.vm.machine import CLOCKS


def add_clock_option(parser: argparse.ArgumentParser) -> None:
    """``--clock virtual|realtime``: the QEMU guest's clock; ``--engine`` beside it."""
    add_engine_option(parser)
    parser.add_argument("--clock", choices=CLOCKS, default=None,
                        help="the QEMU guest's clock: virtual (default under TCG: QEMU's instruction "
                             "counter, results independent of the host's load) or realtime (the "
                             "host's wall clock); natively the wall clock is the only clock. "
                             "Also HARNESS_VM_CLOCK")


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """``--engine uml|qemu|native``: where the emulation runs (harness.vm.engine)."""
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help="where the emulation runs: uml (default: a User-Mode Linux guest "
                             "per run, virtual time, one seed one result), qemu (the Debian "
                             "guest under QEMU's instruction counter) or native (this host's "
                             "kernel, wall clock; needs mac80211_hwsim). Also HARNESS_ENGINE "
                             "(docs/engine.md)")


def apply_clock_option(args: argparse.Namespace) -> None:
    """Hand ``--clock`` and ``--engine`` to the VM layer (and to every harness process it
    starts) by environment."""
    engine = getattr(args, "engine", None)
    if engine is not None:
        choose(engine)
    clock = getattr(args, "clock", None)
    if clock is not None:
        os.environ["HARNESS_VM_CLOCK"] = clock
