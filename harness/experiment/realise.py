"""From resolved run parameters to the arguments of builders, the medium and traffic (pure).

The executor should not re-interpret the YAML: this module is the one place that says what a
geometry preset means, how ``rate: auto`` reaches the builder, and how ``count`` multiplies a
flow, so a reader can follow ``topology.geometry`` or ``flows[0].count`` end to end.
"""
from __future__ import annotations

from typing import Any, Dict, List

from harness.experiment.schema import resolve_endpoint

#: Geometry presets of the chain: neighbour spacing and the ranges the medium derives its
#: thresholds from (``None`` = leave to the medium / the ``medium`` section).
GEOMETRY_PRESETS: Dict[str, Dict[str, Any]] = {
    # ns-2 studies (paper 004, E8): 200 m apart, 250 m transmission, 550 m interference.
    "ns2": {"spacing": 200.0, "tx_range": 250.0, "cs_range": 550.0},
    # Spacing equal to the transmission range (paper 001, E7).
    "ns2-edge": {"spacing": 250.0, "tx_range": 250.0, "cs_range": 550.0},
    # Everyone inside everyone's carrier sense (paper 002, E10); the builder's neighbour links
    # keep routes and peerings hop by hop.
    "one-domain": {"spacing": 50.0, "tx_range": 250.0, "cs_range": 10000.0},
    # Spacing from ``topology.spacing``; ranges from the ``medium`` section.
    "custom": {"spacing": None, "tx_range": None, "cs_range": None},
    # Paper 001 (Chen, Xue, Nahrstedt; E7): ns-2 2.1b8a TwoRayGround, nodes one transmission
    # range (250 m) apart, interference range 500 m, interface queue 25 packets, ns-2's
    # default 1 Mbit/s basic rate (control frames) and 10 dB capture threshold.
    "ns2-001": {"spacing": 250.0, "tx_range": 250.0, "cs_range": 500.0,
                "propagation": "two_ray", "queue": 25, "capture_threshold": 10.0,
                "basic_rates": {"b": [1]}},
    # Paper 004 (Chen, Marsic, Miller; E8, E18-E22): 200 m apart, 250 m transmission, ~550 m
    # interference, capture 10 dB, ns-2 default interface queue 50, 1 Mbit/s basic rate.
    "ns2-004": {"spacing": 200.0, "tx_range": 250.0, "cs_range": 550.0,
                "propagation": "two_ray", "queue": 50, "capture_threshold": 10.0,
                "basic_rates": {"b": [1]}},
}
#: Preset keys that are medium settings besides the ranges (applied unless ``medium`` sets them).
PRESET_MEDIUM_KEYS = ("tx_range", "cs_range", "propagation", "queue", "capture_threshold",
                      "basic_rates")
DEFAULT_SPACING = 200.0
#: Parameters of the chain declaration that are not arguments of ``topologies.chain.build``.
NOT_BUILD_ARGS = ("builder", "geometry")


def builder_arguments(topology: Dict[str, Any]) -> Dict[str, Any]:
    """Keyword arguments for the builder: preset spacing filled in, ``rate: auto`` -> None."""
    args = {k: v for k, v in topology.items() if k not in NOT_BUILD_ARGS}
    preset = GEOMETRY_PRESETS.get(topology.get("geometry", "custom"), {})
    if "spacing" in args and args["spacing"] is None:
        args["spacing"] = preset.get("spacing") or DEFAULT_SPACING
    if args.get("rate") == "auto":
        args["rate"] = None
    return args


def medium_settings(params: Dict[str, Any]) -> Dict[str, Any]:
    """Medium keys with values: the geometry's ranges unless ``medium`` sets them; nulls dropped."""
    medium = dict(params.get("medium") or {})
    preset = GEOMETRY_PRESETS.get(params["topology"].get("geometry", "custom"), {})
    for key in PRESET_MEDIUM_KEYS:
        if medium.get(key) is None and preset.get(key) is not None:
            value = preset[key]
            medium[key] = {k: list(v) for k, v in value.items()} if isinstance(value, dict) \
                else value
    return {k: v for k, v in medium.items() if v is not None}


def flow_instances(params: Dict[str, Any], nodes: List[str]) -> List[Dict[str, Any]]:
    """One dict per iperf3 flow: ``count`` copies expanded, ``first``/``last`` resolved to node
    names, ``flow`` (index in the file) and ``copy`` added, ordered by start time."""
    out = []
    for i, flow in enumerate(params["flows"]):
        src = resolve_endpoint(flow["src"], nodes, f"flows[{i}].src")
        dst = resolve_endpoint(flow["dst"], nodes, f"flows[{i}].dst")
        for copy in range(flow.get("count", 1)):
            out.append(dict(flow, src=src, dst=dst, flow=i, copy=copy))
    return sorted(out, key=lambda f: (f["start"], f["flow"], f["copy"]))
