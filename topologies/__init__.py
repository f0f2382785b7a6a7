"""Topology builders: functions that return a ``harness.net.topo.Topology`` description.

Each builder module declares ``BUILDER = harness.params.Builder(name, build, params)`` next to
its code; ``BUILDERS`` collects every module of this package that does, so a new builder is a
new file here and nothing else (the experiment layer's registry takes them from ``BUILDERS``).
``geometry`` holds the geometry presets (``topology.geometry``).

May import: ``harness.errors``, ``harness.params``, ``harness.kernel``, ``harness.net``,
``harness.medium``. Not traffic, experiments, analysis or papers.
"""
from __future__ import annotations

import importlib
import pkgutil
from typing import Any, Dict

from harness.errors import HarnessError
from harness.net.topo import Topology
from harness.params import Builder


def _discover() -> Dict[str, Builder]:
    found: Dict[str, Builder] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        builder = getattr(module, "BUILDER", None)
        if builder is None:
            continue
        if builder.name in found:
            raise ValueError(f"topologies.{info.name}: builder name {builder.name!r} is "
                             "already declared by another module")
        found[builder.name] = builder
    return found


#: Every declared builder by the name experiments use (``topology: {builder: chain}``).
BUILDERS: Dict[str, Builder] = _discover()


def build(name: str, **params: Any) -> Topology:
    """Build a named topology; unknown names raise HarnessError listing the builders."""
    try:
        builder = BUILDERS[name]
    except KeyError:
        raise HarnessError(f"topology {name!r} is unknown: allowed {', '.join(sorted(BUILDERS))}") from None
    return builder.build(**params)
