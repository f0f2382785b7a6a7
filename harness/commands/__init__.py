"""Subcommands of the ``harness`` CLI; each module has ``register(subparsers)``."""
