"""Mininet-WiFi's API on the harness (see ``harness.compat``)."""
from __future__ import annotations

import importlib
import sys

#: How many prompts ``CLI(net)`` opened in this process (``harness cli`` opens one on a
#: script's ``topo`` only if the script opened none).
_PROMPTS = [0]


def prompts_opened() -> int:
    return _PROMPTS[0]


def install_aliases() -> None:
    """Make ``import mn_wifi...`` and ``import mininet...`` resolve to this layer, so a
    published script runs with its own import lines (``harness cli SCRIPT``)."""
    for name in ("mn_wifi", "mininet"):
        sys.modules.setdefault(name, importlib.import_module(f"harness.compat.{name}"))
