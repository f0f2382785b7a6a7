"""``harness clean``: remove what killed runs left behind, through the clean-up registry.

Each plumbing module registers its own clean-up when imported (``harness.kernel.cleanup``);
``PLUMBING`` lists the modules to import so that every one is registered. A new module that
creates something a killed run can leave behind goes on this list.
"""
from __future__ import annotations

import argparse
import importlib
import os
from typing import TYPE_CHECKING

from harness.errors import HarnessError

if TYPE_CHECKING:
    from harness.cli import Subparsers

#: Modules that register a clean-up callback (namespaces and processes, radios, OVS bridges
#: and run directories, hostapd's and wpa_supplicant's run directories, the medium daemon's
#: run directories, the UML guests' folders and processes).
PLUMBING = (
    "harness.kernel.netns",
    "harness.kernel.hwsim",
    "harness.kernel.ovs",
    "harness.kernel.hostapd",
    "harness.medium.daemon",
    "harness.vm.uml",
)


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "clean", help="remove what crashed or killed runs left behind (hx-* objects only)",
        description="Removes network namespaces hx-*, the processes in them and every process "
                    "marked HARNESS_RUN=, hwsim radios hx-*, OVS bridges hx<tag>*, the run "
                    "directories of OVS, hostapd and wpa_supplicant hx-<tag>-<daemon>-*, the "
                    "medium's run directories hx-<tag>-medium-* and the UML guests' folders hx-uml-* "
                    "whose owner has exited (with their guests). Touches nothing else.")
    p.add_argument("--tag", help="only the run with this 4-hex-digit tag (guest folders "
                                 "have no tag: they are cleaned without --tag only)")
    p.set_defaults(func=run)


def load_plumbing() -> None:
    for module in PLUMBING:
        importlib.import_module(module)


def run(args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        raise HarnessError("harness clean needs root (namespaces, radios, processes)")
    from harness.kernel import cleanup, naming
    if args.tag:
        naming.check_tag(args.tag)
    load_plumbing()
    report = cleanup.clean(args.tag, log=print)
    for problem in report.problems:
        print(f"problem: {problem}")
    if report.empty:
        print("nothing to clean: no harness namespaces, radios, processes, bridges, "
              "daemon or medium run directories or guest folders found")
    return 1 if report.problems else 0
