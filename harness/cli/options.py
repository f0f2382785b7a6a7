"""Options several subcommands share (not a subcommand itself)."""
from __future__ import annotations

import argparse
import os

from harness.vm.machine import CLOCKS


def add_clock_option(parser: argparse.ArgumentParser) -> None:
    """``--clock virtual|realtime``: the guest's clock when the command runs in the VM."""
    parser.add_argument("--clock", choices=CLOCKS, default=None,
                        help="the VM guest's clock: virtual (default under TCG: QEMU's instruction "
                             "counter, results independent of the host's load) or realtime (the "
                             "host's wall clock); natively the wall clock is the only clock. "
                             "Also HARNESS_VM_CLOCK")


def apply_clock_option(args: argparse.Namespace) -> None:
    """Hand ``--clock`` to the VM layer (and to every harness process it starts) by environment."""
    clock = getattr(args, "clock", None)
    if clock is not None:
        os.environ["HARNESS_VM_CLOCK"] = clock
