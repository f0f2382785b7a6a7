"""Options several subcommands share (not a subcommand itself)."""
from __future__ import annotations

import argparse

from harness.vm.engine import ENGINES, choose


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """``--engine uml|native``: where the emulation runs (harness.vm.engine)."""
    parser.add_argument("--engine", choices=ENGINES, default=None,
                        help="where the emulation runs: uml (default: a User-Mode Linux guest "
                             "per run, virtual time, one seed one result) or native (this "
                             "host's kernel, wall clock; needs mac80211_hwsim). Also "
                             "HARNESS_ENGINE (docs/engine.md)")


def apply_engine_option(args: argparse.Namespace) -> None:
    """Hand ``--engine`` to the engine layer (and to every harness process it starts) by
    environment."""
    engine = getattr(args, "engine", None)
    if engine is not None:
        choose(engine)
