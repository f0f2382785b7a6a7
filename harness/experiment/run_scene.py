"""The picture's data of an experiment's run: from its parameters, or from its stored record.

``scene_of_params(params)`` builds the topology the run's builder describes (with the
policies' changes) and lays the flows' static routes over it; ``scene_of_record(record)``
adds what the run measured: each link's delivery ratio from the medium's final counters.
``harness draw``, the prompt and reports draw these with ``harness.analysis.topology_figure``.
"""
from __future__ import annotations

from typing import Any, Dict, Mapping, Optional

from harness.experiment.execute import build_topology, make_policies, medium_choice
from harness.experiment.realise import flow_instances
from harness.experiment.registry import default_registry
from harness.net import scene as scenes


def scene_of_params(params: Mapping[str, Any], name: Optional[str] = None) -> scenes.Scene:
    """Nodes, ranges and links of a run's topology, and the static paths of its flows."""
    registry = default_registry()
    params = dict(params)
    topo = build_topology(params, registry)
    for policy in make_policies(params, registry):
        policy.prepare(topo)
    medium, _record = medium_choice(params)
    scene = scenes.scene_of(topo, medium)
    if name:
        scene.name = name
    paths = []
    for flow in flow_instances(params, topo.node_names()):
        src, dst = flow["src"], flow["dst"]
        if flow.get("direction") == "reverse":
            src, dst = dst, src
        paths.append(scenes.static_path(topo, src, dst))
    return scenes.with_routes(scene, [p for p in paths if p])


def scene_of_record(record: Mapping[str, Any]) -> scenes.Scene:
    """A stored run's scene with the delivery ratio of each link it used (its medium's final
    counters)."""
    point = record.get("point") or {}
    label = ", ".join(f"{k.split('.')[-1]}={v}" for k, v in point.items())
    scene = scene_of_params(record["params"],
                            name=f"{record.get('experiment', 'run')} {record.get('run_id', '')}"
                                 + (f" ({label})" if label else ""))
    counters: Optional[Dict[str, Any]] = ((record.get("medium") or {}).get("counters"))
    return scenes.with_counters(scene, counters) if counters else scene
