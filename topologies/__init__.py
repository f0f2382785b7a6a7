"""Topology builders: functions that return a ``harness.net.topo.Topology`` description.

``BUILDERS`` maps the names experiments use (YAML ``topology: {name: chain, ...}``) to them.
"""
from __future__ import annotations

from typing import Any, Callable, Dict

from harness.errors import HarnessError
from harness.net.topo import Topology
from topologies import chain

BUILDERS: Dict[str, Callable[..., Topology]] = {
    "chain": chain.build,
}


def build(name: str, **params: Any) -> Topology:
    """Build a named topology; unknown names raise HarnessError listing the builders."""
    try:
        builder = BUILDERS[name]
    except KeyError:
        raise HarnessError(f"topology {name!r} is unknown: allowed {', '.join(sorted(BUILDERS))}") from None
    return builder(**params)
