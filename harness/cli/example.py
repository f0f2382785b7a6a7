"""``harness example [NAME]``: run one of the Python examples in ``examples/``.

Examples are plain scripts using the Python API; like every emulation they run in the VM
when this host has no mac80211_hwsim.
"""
from __future__ import annotations

import argparse
import runpy
import sys
from typing import TYPE_CHECKING

from harness.cli.options import add_engine_option
from harness.errors import HarnessError
from harness.paths import code_root

if TYPE_CHECKING:
    from harness.cli import Subparsers


def register(sub: Subparsers) -> None:
    p = sub.add_parser("example", help="run a Python example from examples/ (default: chain3)")
    p.add_argument("name", nargs="?", default="chain3", help="example name (file stem)")
    p.add_argument("args", nargs="*", help="arguments passed to the example")
    p.add_argument("--list", action="store_true", help="list the examples")
    add_engine_option(p)
    p.set_defaults(func=cmd_example)


def cmd_example(args: argparse.Namespace) -> int:
    examples = code_root() / "examples"
    names = sorted(p.stem for p in examples.glob("*.py")) if examples.is_dir() else []
    if args.list:
        for name in names:
            doc = (examples / f"{name}.py").read_text().split('"""')
            print(f"{name:16} {doc[1].strip().splitlines()[0] if len(doc) > 2 else ''}")
        return 0
    if args.name not in names:
        raise HarnessError(f"example {args.name!r} not found; allowed values: {', '.join(names)}")
    from harness.vm.dispatch import maybe_in_vm
    rc = maybe_in_vm(["example", args.name, "--"] + list(args.args))  # -- keeps the example's options its own
    if rc is not None:
        return rc
    sys.argv = [str(examples / f"{args.name}.py")] + list(args.args)
    runpy.run_path(sys.argv[0], run_name="__main__")
    return 0
