"""``harness clean``: remove namespaces, radios, processes and bridges left by killed runs."""
from __future__ import annotations

import argparse
import os

from harness.errors import HarnessError


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "clean", help="remove what crashed or killed runs left behind (hx-* objects only)",
        description="Removes network namespaces hx-*, the processes in them and every process "
                    "marked HARNESS_RUN=, hwsim radios hx-*, and OVS bridges hx<tag>*. "
                    "Touches nothing else.")
    p.add_argument("--tag", help="only the run with this 4-hex-digit tag")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if os.geteuid() != 0:
        raise HarnessError("harness clean needs root (namespaces, radios, processes)")
    from harness.kernel import clean, naming
    if args.tag:
        naming.check_tag(args.tag)
    report = clean.clean(args.tag, log=print)
    for problem in report.problems:
        print(f"problem: {problem}")
    if report.empty:
        print("nothing to clean: no harness namespaces, radios, processes or bridges found")
    return 1 if report.problems else 0
