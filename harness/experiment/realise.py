"""From resolved run parameters to the arguments of builders, the medium and traffic (pure).

The executor should not re-interpret the YAML: this module is the one place that says how a
geometry preset (``topologies.geometry``) reaches the builder and the medium, how ``rate: auto``
reaches the builder, and how ``count`` multiplies a flow, so a reader can follow
``topology.geometry`` or ``flows[0].count`` end to end.
"""
from __future__ import annotations

from typing import Any, Dict, List, Optional

from harness.experiment.schema import resolve_endpoint
from harness.net.topo import Topology
from topologies import BUILDERS, geometry

#: Parameters of a builder's declaration that are not arguments of its ``build`` function.
NOT_BUILD_ARGS = ("builder", "geometry")


def network_routing(topology: Dict[str, Any]) -> bool:
    """True when ``topology.routing`` is the network's (``Topology.set_routing``: static or a
    MANET protocol), False when the builder declares a ``routing`` of its own (the campus's
    etx or pinned paths)."""
    builder = BUILDERS.get(topology.get("builder", ""))
    return builder is None or all(p.name != "routing" for p in builder.params)


def routed(topo: Topology, topology: Dict[str, Any]) -> Topology:
    """The builder's ``topo`` with the network's routing of ``topology`` set."""
    if network_routing(topology) and "routing" in topology:
        topo.set_routing(topology["routing"], "topology.routing")
    return topo


def builder_arguments(topology: Dict[str, Any]) -> Dict[str, Any]:
    """Keyword arguments for the builder: preset spacing filled in, ``rate: auto`` -> None."""
    skip = NOT_BUILD_ARGS + (("routing",) if network_routing(topology) else ())
    args = {k: v for k, v in topology.items() if k not in skip}
    if "spacing" in args and args["spacing"] is None:
        args["spacing"] = geometry.spacing(topology.get("geometry", "custom"))
    if args.get("rate") == "auto":
        args["rate"] = None
    return args


def medium_settings(params: Dict[str, Any]) -> Dict[str, Any]:
    """Medium keys with values: the geometry's ranges unless ``medium`` sets them; nulls dropped;
    ``mobility`` lasting until the last flow ends unless it says how long."""
    medium = dict(params.get("medium") or {})
    preset = geometry.medium_defaults(params["topology"].get("geometry", "custom"))
    for key, value in preset.items():
        if medium.get(key) is None:
            medium[key] = value
    if medium.get("mobility") and medium["mobility"].get("duration") is None:
        medium["mobility"] = dict(medium["mobility"], duration=flows_end(params))
    return {k: v for k, v in medium.items() if v is not None}


def flows_end(params: Dict[str, Any]) -> float:
    """Seconds from the first flow's start to the end of the last one: how long nodes move
    (the medium starts their trajectories as the flows start: execute.run_flows' caller)."""
    return max(float(f["start"]) + float(f["duration"]) for f in params["flows"])


def flow_instances(params: Dict[str, Any], nodes: List[str],
                   aliases: Optional[Dict[str, str]] = None) -> List[Dict[str, Any]]:
    """One dict per iperf3 flow: ``count`` copies expanded, ``first``/``last`` and aliases
    resolved to node names, ``flow`` (index in the file) and ``copy`` added, ordered by start
    time."""
    out = []
    for i, flow in enumerate(params["flows"]):
        src = resolve_endpoint(flow["src"], nodes, f"flows[{i}].src", aliases)
        dst = resolve_endpoint(flow["dst"], nodes, f"flows[{i}].dst", aliases)
        for copy in range(flow.get("count", 1)):
            out.append(dict(flow, src=src, dst=dst, flow=i, copy=copy))
    return sorted(out, key=lambda f: (f["start"], f["flow"], f["copy"]))
