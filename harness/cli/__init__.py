"""The ``harness`` command: ``main`` parses the command line; each module of this package is
one subcommand (a front end: it may import every layer, and nothing below imports it).

Each command module defines ``register(subparsers)`` which adds its parser and sets
``func=callable(args) -> int``. Errors meant for users are ``HarnessError``: printed
once, without a traceback, exit code 2.
"""
from __future__ import annotations

import argparse
import importlib
import sys
from typing import TYPE_CHECKING, List, Optional

from harness.errors import HarnessError

if TYPE_CHECKING:
    #: What ``register(subparsers)`` receives: ``parser.add_subparsers()``.
    Subparsers = argparse._SubParsersAction[argparse.ArgumentParser]

#: Subcommand modules, in the order ``harness --help`` lists them.
COMMAND_MODULES = [
    "run", "plot", "report", "archive", "floorplan", "test", "doctor", "clean", "bench",
    "example", "cli", "draw",
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="harness",
        description="Emulate TCP over multihop 802.11 networks on mac80211_hwsim radios.",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True
    for name in COMMAND_MODULES:
        importlib.import_module(f"harness.cli.{name}").register(sub)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else argv
    args, extra = parser.parse_known_args(argv)
    if getattr(args, "passthrough", False):  # a bench script: all after its name is its own
        rest = argv[argv.index(args.bench_command) + 1:]
        args.args = rest[1:] if rest[:1] == ["--"] else rest
    elif extra:
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    from harness.cli.options import apply_engine_option
    try:
        apply_engine_option(args)
        return int(args.func(args) or 0)
    except HarnessError as err:
        print(f"harness {args.command}: error: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        print(f"harness {args.command}: interrupted; cleaned up", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
