"""Mininet-WiFi's API on the harness (see ``harness.compat``): ``net``, ``node``, ``link``,
``cli``, ``wmediumdConnector``, as a script imports them."""
from __future__ import annotations

import importlib
import sys

#: How many prompts ``CLI(net)`` opened in this process (``harness cli`` opens one on a
#: script's ``topo`` only if the script opened none).
_PROMPTS = [0]
#: The modules a script imports, under the names it imports them by.
ALIASES = {
    "mn_wifi": ("net", "node", "link", "cli", "wmediumdConnector"),
    "mininet": ("log", "node", "link", "cli", "net"),
}


def prompts_opened() -> int:
    return _PROMPTS[0]


def install_aliases() -> None:
    """Make ``mn_wifi.*`` and ``mininet.*`` the harness's modules, so a published script runs
    with its own import lines (``harness cli SCRIPT``). Each alias is the module itself (not
    a copy), so ``cls=adhoc`` in a script is the class the layer checks for."""
    for package, modules in ALIASES.items():
        sys.modules[package] = importlib.import_module(f"harness.compat.{package}")
        for name in modules:
            sys.modules[f"{package}.{name}"] = importlib.import_module(
                f"harness.compat.{package}.{name}")
