"""``mininet.log``: ``setLogLevel`` and the output functions scripts call.

Messages go to standard output as Mininet prints them (``info('*** Creating nodes\\n')``);
``debug`` only at level ``debug``. Levels: debug, info, output, warning, warn, error,
critical (Mininet's); another is refused naming them.
"""
from __future__ import annotations

import sys
from functools import partial
from typing import Any

from harness.errors import HarnessError

LEVELS = {"debug": 10, "info": 20, "output": 25, "warning": 30, "warn": 30, "error": 40,
          "critical": 50}
_LEVEL = ["output"]


def setLogLevel(level: str = "info") -> None:  # noqa: N802 - Mininet's name
    if level not in LEVELS:
        raise HarnessError(f"setLogLevel({level!r}): allowed {', '.join(LEVELS)}")
    _LEVEL[0] = level


def _emit(level: str, *args: Any) -> None:
    if LEVELS[level] >= LEVELS[_LEVEL[0]]:
        sys.stdout.write("".join(str(a) for a in args))
        sys.stdout.flush()


#: The output functions, each at its level (``warn`` and ``warning`` are one).
debug = partial(_emit, "debug")
info = partial(_emit, "info")
output = partial(_emit, "output")
warn = warning = partial(_emit, "warning")
error = partial(_emit, "error")
